// esbuild entry for loupe.js (IIFE): start from the current <script> tag, with the errors and
// vitals plugins unless data-errors="false" / data-vitals="false".
import { startFromScript } from './script-start.ts';

startFromScript();
