// esbuild entry for loupe-widget.js: the script-tag build plus the diagnostics panel, whose
// "not sent" diagnostics go to the server as reports (logged with source `sdk` when widgetReports is on).
import { startFromScript } from './script-start.ts';
import { widget } from './widget-panel.ts';

startFromScript(() => [widget()]);
