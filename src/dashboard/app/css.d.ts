// Stylesheets are bundled by esbuild into the shell's CSS file; importing one yields nothing.
declare module '*.css';
