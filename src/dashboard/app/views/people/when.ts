// Dates as people read them: local date and time to the minute (the title of an element keeps the ISO text).
const format = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short' });
const clock = new Intl.DateTimeFormat('en', { hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false });

export const when = (iso: string | null | undefined): string => (iso ? format.format(new Date(iso)) : '–');
export const time = (iso: string): string => clock.format(new Date(iso));
