import { fileURLToPath } from 'node:url';
import { BackendError } from '../backend-error.ts';

let bundled: Promise<string> | undefined;

/**
 * The device page's code: page/device-page.ts and everything it imports (the WebGPU
 * kernels, memory layout and timing of the Node backend, the wire format, the verifier),
 * bundled for the browser by esbuild the first time a page is served, then kept for the
 * process. From dist/ the compiled JavaScript is bundled, from src/ the TypeScript: either
 * way the page runs the very code the Node backend runs, never a copy.
 */
export function pageBundle(): Promise<string> {
  bundled ??= build().catch((error: unknown) => {
    bundled = undefined;
    throw error;
  });
  return bundled;
}

async function build(): Promise<string> {
  const typescript = import.meta.url.endsWith('.ts');
  const entry = fileURLToPath(new URL(`./page/device-page.${typescript ? 'ts' : 'js'}`, import.meta.url));
  let esbuild: typeof import('esbuild');
  try {
    esbuild = await import('esbuild');
  } catch (error) {
    throw new BackendError(`the device page is bundled by the npm package "esbuild", which did not load: ${(error as Error).message}.`);
  }
  const result = await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    // Every browser with WebGPU reads this.
    target: 'es2022',
    legalComments: 'none',
    logLevel: 'silent',
  });
  const file = result.outputFiles[0];
  if (file === undefined) throw new BackendError('esbuild produced no bundle for the device page.');
  return file.text;
}
