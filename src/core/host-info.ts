/** The machine a run measured from, as every kind of run records it. */
import os from 'node:os';

export function hostInfo() {
  const cpus = os.cpus();
  return {
    hostname: os.hostname(),
    platform: `${os.platform()} ${os.release()}`,
    arch: os.arch(),
    cpuModel: cpus[0]?.model ?? 'unknown',
    cpus: cpus.length,
    memoryBytes: os.totalmem(),
  };
}
