// The widget plugin: a small fixed panel (shadow DOM, so the site's CSS cannot reach it) listing what
// was sent and why something was not, and forwarding every "not sent" diagnostic to the server as an
// SdkReport in the next batch. Text only goes through textContent, never innerHTML.
import type { SdkReport } from '../event.ts';
import type { Diagnostic, Plugin } from './types.ts';

const MAX_LINES = 50;

const STYLE = `
:host{all:initial}
.p{position:fixed;right:12px;bottom:12px;z-index:2147483647;width:320px;max-height:40vh;display:flex;flex-direction:column;
font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,monospace;color:#e5e7eb;background:#111827ee;border-radius:8px;box-shadow:0 4px 16px #0006}
.h{display:flex;justify-content:space-between;padding:6px 10px;cursor:pointer;font-weight:600}
.h button{all:unset;cursor:pointer;padding:0 4px}
ol{list-style:none;margin:0;padding:0 10px 8px;overflow:auto}
li{padding:2px 0;border-top:1px solid #374151;word-break:break-word}
.info{color:#a7f3d0}.warn{color:#fde68a}.error{color:#fca5a5}.ev{color:#93c5fd}
.c ol{display:none}`;

export function widget(): Plugin {
  return {
    name: 'widget',
    setup(client) {
      const doc = client.window.document;
      const host = doc.createElement('div');
      host.setAttribute('data-loupe-widget', '');
      const root = host.attachShadow({ mode: 'open' });
      const style = doc.createElement('style');
      style.textContent = STYLE;
      const panel = doc.createElement('div');
      panel.className = 'p';
      const header = doc.createElement('div');
      header.className = 'h';
      const title = doc.createElement('span');
      const close = doc.createElement('button');
      close.textContent = '×';
      close.title = 'Hide';
      header.append(title, close);
      const list = doc.createElement('ol');
      panel.append(header, list);
      root.append(style, panel);
      let count = 0;
      const setTitle = () => (title.textContent = `Loupe · ${count} sent`);
      setTitle();

      const add = (text: string, className: string) => {
        const item = doc.createElement('li');
        item.className = className;
        item.textContent = `${new Date().toLocaleTimeString()} ${text}`;
        list.prepend(item);
        while (list.children.length > MAX_LINES) list.lastElementChild?.remove();
      };
      const stopEvents = client.onEvent((event) =>
        add(`→ ${event.name}${event.name === 'pageview' ? ` ${event.page?.path ?? ''}` : ''}`, 'ev'),
      );
      const stopDiagnostics = client.onDiagnostic((diagnostic) => {
        if (diagnostic.kind === 'sent') {
          count += Number(diagnostic.data?.accepted ?? 0) || 0;
          setTitle();
        } else {
          client.report(toReport(diagnostic));
        }
        add(`${diagnostic.kind}: ${diagnostic.message}`, diagnostic.level);
      });
      header.addEventListener('click', (event) => {
        if (event.target === close) host.remove();
        else panel.classList.toggle('c');
      });
      const mount = () => (doc.body ?? doc.documentElement).append(host);
      if (doc.body) mount();
      else client.listen(doc, 'DOMContentLoaded', mount, { once: true });
      return () => {
        stopEvents();
        stopDiagnostics();
        host.remove();
      };
    },
  };
}

export function toReport(diagnostic: Diagnostic): SdkReport {
  const report: SdkReport = {
    level: diagnostic.level,
    message: `${diagnostic.kind}: ${diagnostic.message}`.slice(0, 1000),
  };
  if (diagnostic.data) report.data = { kind: diagnostic.kind, ...diagnostic.data };
  else report.data = { kind: diagnostic.kind };
  return report;
}
