"""What a module built with debug waits (``compile(..., debug_waits=NS)``)
holds, and how its records read (part of the runtime: runtime.py loads this
file beside it and re-exports its names; runtime.py makes the driver calls).

The one Python definition: it mirrors ``debug_waits::`` in
passes/include/mbarrier/Conversion/MBarrierToNVVM/MBarrierToNVVM.h, the one
C++ one. The kernel makes no call (a printf would make ptxas serialize its
wgmma): a stuck warp writes a record into a host-mapped buffer whose address
runtime.py's ``Module.load`` gives the module, then traps; the host, which
can still read its own memory after the fault, formats it here. Standard
library only.
"""
from __future__ import annotations

import re
import struct

#: `[2 x i64]` global: the report buffer's device address, records taken.
#: Its presence is the flag that a module has debug waits.
DEBUG_WAITS_STATE = "mbarrier_debug_waits"
#: The wait sites: line K is site K, `FILE:LINE:COL<TAB>BARRIER<TAB>DEFINED AT`.
DEBUG_WAITS_SITES = "mbarrier_debug_wait_sites"
DEBUG_WAITS_HEADER_BYTES = 64
DEBUG_WAITS_RECORDS = 64
DEBUG_WAITS_RECORD_BYTES = 64
#: The report buffer: the header (u32 "more warps were stuck than records"),
#: then the records.
DEBUG_WAITS_REPORT_BYTES = DEBUG_WAITS_HEADER_BYTES + DEBUG_WAITS_RECORDS * DEBUG_WAITS_RECORD_BYTES
# A record: u32 site + 1, u32 parity, u64 index, u64 waited ns, u32
# %cluster_ctarank, u32 warp, u32 %ctaid.x/y/z, u32 state written, u64 state.
_RECORD = "<IIQQIIIIIIQ"
#: How each located line begins (run_debug_waits.py finds lines by it).
DEBUG_WAIT_MARK = "mbarrier.wait timed out at "


def sites_of_table(table: bytes) -> list:
    """The wait sites the ``DEBUG_WAITS_SITES`` table's bytes list, in site
    order: ``[where, barrier, defined at]`` each."""
    text = bytes(table).split(b"\0", 1)[0].decode("utf-8", "replace")
    return [line.split("\t") for line in text.splitlines()]


def debug_wait_sites(ptx: str) -> list:
    """The wait sites of a module's PTX built with debug waits, in site
    order: ``[where, barrier, defined at]`` each (``[]`` without them)."""
    found = re.search(r"\.b8 " + DEBUG_WAITS_SITES + r"\[\d+\] = \{([^}]*)\}", ptx)
    if not found:
        return []
    return sites_of_table(bytes(int(b) for b in found.group(1).split(",")))


def barrier_state_text(state: int) -> str:
    """The mbarrier state that ``mbarrier.arrive`` with count 0 returned,
    as a line shows it: its upper word, where the H200 (sm_90) keeps the
    phase (bit 63), the pending arrivals (a 20-bit negative count at bits
    43-62) and a transaction field (bits 32-42, non-zero while bytes are
    pending); the lower word is not the barrier's (it held the register's
    old value). The layout is not specified (PTX ISA): it was measured
    (bench/results/debug_waits/dw_table.md)."""
    high = state >> 32
    pending = (-(high >> 11)) & 0xFFFFF
    return (f"0x{high:08x} (phase {high >> 31}, pending arrivals {pending}, "
            f"tx field 0x{high & 0x7FF:03x}; sm_90 layout)")


def record_lines(raw: bytes, sites: list) -> tuple[list, bool]:
    """(the located lines of the records in a report buffer's bytes `raw`,
    whose module has wait sites `sites`; whether more warps were stuck than
    there are records)."""
    full = struct.unpack_from("<I", raw, 0)[0] != 0
    out = []
    for k in range(DEBUG_WAITS_RECORDS):
        fields = struct.unpack_from(_RECORD, raw,
                                    DEBUG_WAITS_HEADER_BYTES + k * DEBUG_WAITS_RECORD_BYTES)
        site, parity, index, waited, rank, warp, x, y, z, written, state = fields
        if site == 0:
            continue
        where, name, defined = (sites[site - 1] + ["", "", ""])[:3] \
            if site <= len(sites) else (f"wait site {site - 1}", "?", "")
        word = (f"barrier state {barrier_state_text(state)}" if written
                else "barrier state not read")
        out.append(f"{DEBUG_WAIT_MARK}{where} (barrier {name}[{index}]"
                   + (f" from {defined}" if defined else "")
                   + f", parity {parity}, waited {waited} ns) cta {rank} (ctaid {x},{y},{z}) "
                   f"warp {warp}; {word}")
    return out, full
