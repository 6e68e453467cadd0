/**
 * A seccomp filter (classic BPF, as bubblewrap's `--seccomp FD` loads it) that refuses the
 * kernel keyring's system calls with EPERM: the keyring is not a namespace, and a login
 * session's keyring (Kerberos tickets, a desktop's secrets) would otherwise be readable
 * inside the sandbox. Everything else is allowed; a call of another architecture's ABI is
 * refused like the keyring's.
 */

/** BPF opcodes: load a 32-bit word of the seccomp data, jump if equal / greater or equal, return. */
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const RET_K = 0x06;
const RET_ALLOW = 0x7fff0000;
/** SECCOMP_RET_ERRNO with EPERM. */
const RET_EPERM = 0x00050001;
/** Offsets in `struct seccomp_data`. */
const NR = 0;
const ARCH = 4;

interface Abi {
  arch: number;
  /** add_key, request_key, keyctl. */
  keyring: readonly [number, number, number];
  /** System call numbers at or above this are refused (x32 on x86-64); null: none. */
  refuseFrom: number | null;
}

const ABIS: Readonly<Partial<Record<string, Abi>>> = {
  x64: { arch: 0xc000003e, keyring: [248, 249, 250], refuseFrom: 0x40000000 },
  arm64: { arch: 0xc00000b7, keyring: [217, 218, 219], refuseFrom: null },
};

/** The filter for Node's `process.arch`, or null for an architecture it does not know. */
export function keyringFilter(arch: string): Buffer | null {
  const abi = ABIS[arch];
  if (abi === undefined) return null;
  const [addKey, requestKey, keyctl] = abi.keyring;
  const program: [number, number, number, number][] = [
    [LD_W_ABS, 0, 0, ARCH],
    [JEQ_K, 1, 0, abi.arch],
    [RET_K, 0, 0, RET_EPERM],
    [LD_W_ABS, 0, 0, NR],
    // Jumps count from the next instruction: to the final EPERM.
    ...(abi.refuseFrom === null
      ? []
      : [[JGE_K, 4, 0, abi.refuseFrom] as [number, number, number, number]]),
    [JEQ_K, 3, 0, addKey],
    [JEQ_K, 2, 0, requestKey],
    [JEQ_K, 1, 0, keyctl],
    [RET_K, 0, 0, RET_ALLOW],
    [RET_K, 0, 0, RET_EPERM],
  ];
  const filter = Buffer.alloc(program.length * 8);
  program.forEach(([code, jt, jf, k], i) => {
    filter.writeUInt16LE(code, i * 8);
    filter.writeUInt8(jt, i * 8 + 2);
    filter.writeUInt8(jf, i * 8 + 3);
    filter.writeUInt32LE(k >>> 0, i * 8 + 4);
  });
  return filter;
}
