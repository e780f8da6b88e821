import { existsSync } from 'node:fs';

/**
 * Which Vulkan driver (ICD: installable client driver, named by a JSON manifest) Dawn is
 * to load. Dawn runs WebGPU on Vulkan here; the Vulkan loader reads VK_DRIVER_FILES (or
 * the older VK_ICD_FILENAMES) when Dawn creates its Vulkan instance, so the choice is made
 * in the environment before `create()`.
 */
export interface DriverChoice {
  /** The ICD manifest, or undefined for the loader's own search (a real GPU's driver). */
  readonly icd: string | undefined;
  /** Where the choice came from. */
  readonly source: 'MEMPLAN_VULKAN_ICD' | 'VK_DRIVER_FILES' | 'VK_ICD_FILENAMES' | 'known path' | 'system default';
}

/** Set MEMPLAN_VULKAN_ICD to this to leave the Vulkan loader alone (use a real GPU's driver). */
export const SYSTEM_DRIVER = 'system';

/**
 * Software drivers we know, fastest first: Mesa's lavapipe (llvmpipe behind Vulkan; Mesa >=
 * 24 for Dawn), then Google's SwiftShader as Chromium ships it.
 */
export const KNOWN_ICDS: readonly string[] = [
  '/usr/share/vulkan/icd.d/lvp_icd.json',
  `/usr/share/vulkan/icd.d/lvp_icd.${machine()}.json`,
  '/usr/local/share/vulkan/icd.d/lvp_icd.json',
  `/usr/local/share/vulkan/icd.d/lvp_icd.${machine()}.json`,
  '/etc/vulkan/icd.d/lvp_icd.json',
  '/usr/lib/chromium/vk_swiftshader_icd.json',
  '/usr/lib64/chromium/vk_swiftshader_icd.json',
  '/usr/lib/chromium-browser/vk_swiftshader_icd.json',
  '/opt/google/chrome/vk_swiftshader_icd.json',
];

function machine(): string {
  return process.arch === 'x64' ? 'x86_64' : process.arch === 'arm64' ? 'aarch64' : process.arch;
}

/**
 * The drivers to try, in order: MEMPLAN_VULKAN_ICD alone when set (a path, or `system`);
 * else a driver the user already chose for the Vulkan loader (VK_DRIVER_FILES /
 * VK_ICD_FILENAMES); else every known software ICD present on this machine, then the
 * loader's default search.
 */
export function driverCandidates(env: NodeJS.ProcessEnv = process.env, exists: (path: string) => boolean = existsSync): DriverChoice[] {
  const chosen = env.MEMPLAN_VULKAN_ICD?.trim();
  if (chosen) return [{ icd: chosen === SYSTEM_DRIVER ? undefined : chosen, source: 'MEMPLAN_VULKAN_ICD' }];
  for (const name of ['VK_DRIVER_FILES', 'VK_ICD_FILENAMES'] as const) {
    const value = env[name]?.trim();
    if (value) return [{ icd: value, source: name }];
  }
  const known = [...new Set(KNOWN_ICDS)].filter((path) => exists(path)).map((icd): DriverChoice => ({ icd, source: 'known path' }));
  return [...known, { icd: undefined, source: 'system default' }];
}

/** Points the Vulkan loader at one driver (or back at its default search). */
export function selectDriver(choice: DriverChoice, env: NodeJS.ProcessEnv = process.env): void {
  if (choice.source === 'VK_DRIVER_FILES' || choice.source === 'VK_ICD_FILENAMES') return; // the user's own setting
  if (choice.icd === undefined) {
    delete env.VK_DRIVER_FILES;
    delete env.VK_ICD_FILENAMES;
  } else {
    env.VK_DRIVER_FILES = choice.icd;
    env.VK_ICD_FILENAMES = choice.icd;
  }
}

/** How the chosen driver is named in device info and messages. */
export function describeDriver(choice: DriverChoice): string {
  return choice.icd === undefined ? 'the Vulkan loader default' : `${choice.icd} (${choice.source})`;
}
