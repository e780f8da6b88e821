import { describe, expect, it } from 'vitest';
import { BROWSER_NAMES, browserFlags, findBrowser, hasGpu } from '../../../src/backends/browser/launch.ts';

/** A PATH of two folders where only `present` are executables. */
function finder(present: readonly string[]): (path: string) => boolean {
  return (path) => present.includes(path);
}
const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({ PATH: '/opt/bin:/usr/bin', ...extra });

describe('finding the browser', () => {
  it('takes the first of the usual names on PATH, folder by folder', () => {
    expect(BROWSER_NAMES.slice(0, 3)).toEqual(['chromium', 'chromium-browser', 'google-chrome']);
    expect(findBrowser(undefined, env(), finder(['/usr/bin/google-chrome', '/usr/bin/chromium']))).toBe('/usr/bin/chromium');
    expect(findBrowser(undefined, env(), finder(['/usr/bin/google-chrome', '/opt/bin/google-chrome']))).toBe('/opt/bin/google-chrome');
  });

  it('takes a given path or name (--browser) before $MEMPLAN_BROWSER, and that before PATH', () => {
    const present = finder(['/usr/bin/chromium', '/usr/bin/brave-browser', '/home/me/chrome']);
    expect(findBrowser('/home/me/chrome', env({ MEMPLAN_BROWSER: 'brave-browser' }), present)).toBe('/home/me/chrome');
    expect(findBrowser(undefined, env({ MEMPLAN_BROWSER: 'brave-browser' }), present)).toBe('/usr/bin/brave-browser');
    expect(findBrowser('brave-browser', env(), present)).toBe('/usr/bin/brave-browser');
  });

  it('says what it looked for, and never offers to download a browser', () => {
    expect(() => findBrowser(undefined, env(), finder([]))).toThrow(
      /^no Chromium-based browser was found \(looked on PATH for chromium, .*\): install one \(Debian: apt-get install chromium\) or give its path with --browser; memplan never downloads a browser\.$/,
    );
    expect(() => findBrowser('/nope/chrome', env(), finder([]))).toThrow(/^the browser "\/nope\/chrome" is not an executable file, nor a program on PATH\.$/);
    expect(() => findBrowser(undefined, env({ MEMPLAN_BROWSER: 'nope' }), finder([]))).toThrow(/^the browser "nope" \(from \$MEMPLAN_BROWSER\) is not/);
  });
});

describe("the browser's switches", () => {
  it('without a GPU: headless, WebGPU on, and SwiftShader as the adapter', () => {
    const { flags, adapter } = browserFlags({}, false);
    expect(adapter).toBe('swiftshader');
    expect(flags).toEqual(expect.arrayContaining(['--headless=new', '--enable-unsafe-webgpu', '--use-webgpu-adapter=swiftshader']));
  });

  it('with a GPU: no SwiftShader, unless $MEMPLAN_BROWSER_ADAPTER asks for it; a wrong value is an error', () => {
    expect(browserFlags({}, true).flags).not.toContain('--use-webgpu-adapter=swiftshader');
    expect(browserFlags({ MEMPLAN_BROWSER_ADAPTER: 'swiftshader' }, true)).toMatchObject({ adapter: 'swiftshader' });
    expect(browserFlags({ MEMPLAN_BROWSER_ADAPTER: 'gpu' }, false)).toMatchObject({ adapter: 'gpu' });
    expect(() => browserFlags({ MEMPLAN_BROWSER_ADAPTER: 'metal' }, true)).toThrow(/must be swiftshader or gpu, not "metal"/);
  });

  it('a machine has a GPU where Linux shows a render node (other systems always have one)', () => {
    expect(hasGpu('darwin')).toBe(true);
    expect(hasGpu('linux', '/nonexistent/dri')).toBe(false);
  });
});
