import { BackendError } from '../../../src/backends/backend-error.ts';
import { findBrowser } from '../../../src/backends/browser/launch.ts';

/**
 * The browser the browser tests start, or undefined (they skip, saying so on the console)
 * where this machine has none. CI installs Debian's chromium (.ci/run); memplan never
 * downloads a browser.
 */
export function testBrowser(file: string): string | undefined {
  try {
    return findBrowser(undefined);
  } catch (error) {
    if (!(error instanceof BackendError)) throw error;
    console.warn(`SKIPPED ${file}: ${error.message}`);
    return undefined;
  }
}
