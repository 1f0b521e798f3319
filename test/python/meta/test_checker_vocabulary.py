"""The checker's two vocabularies (issue 30, "Build"), read from its sources:

- Foreign ops (nvvm, gpu, scf, arith, llvm) are asked about through
  UpstreamOps.{h,cpp}, "the one place" the checker names them: no other
  file of passes/lib/Analysis/SyncCheck or its headers names an op class of
  those dialects (`NVVM::`, `gpu::`, `scf::`, `arith::`, `LLVM::`), but the
  files of BYPASSING, each of which still does (the list only shrinks: a
  file moved onto UpstreamOps must leave it).
- Report slots are one enum, ReportSlot in Reporter.h: every slot has its
  own number, kAllReportSlots lists each of them (its static_assert then
  rules out a shared number), and no call of report/note/clear passes a
  number (the API takes a ReportSlot).
"""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
LIB = ROOT / "passes" / "lib" / "Analysis" / "SyncCheck"
INCLUDE = ROOT / "passes" / "include" / "mbarrier" / "Analysis" / "SyncCheck"
FOREIGN = re.compile(r"\b(NVVM|gpu|scf|arith|LLVM)::")
UPSTREAM = {"UpstreamOps.h", "UpstreamOps.cpp"}
# Files that still name foreign ops directly (to be moved onto UpstreamOps).
BYPASSING = {
    "BarrierKeys.cpp", "SyncModel.cpp", "SyncUniform.cpp",
    "CheckInit.cpp", "CheckPhases.cpp", "SyncViews.cpp",
}


def _sources():
    return sorted(p for d in (LIB, INCLUDE) for p in d.iterdir() if p.suffix in (".h", ".cpp"))


def _code(path):
    """The file without // comments (a comment may name an op)."""
    return re.sub(r"//[^\n]*", "", path.read_text())


def test_foreign_ops_only_through_upstream_ops():
    naming = {p.name for p in _sources() if FOREIGN.search(_code(p))}
    assert (LIB / "UpstreamOps.cpp").exists() and "UpstreamOps.cpp" in naming
    new = sorted(naming - UPSTREAM - BYPASSING)
    assert not new, f"{new} name nvvm/gpu/scf/arith/llvm ops: ask UpstreamOps.h instead"
    moved = sorted(BYPASSING - naming)
    assert not moved, f"{moved} no longer name foreign ops: take them off BYPASSING"


def _slots():
    text = _code(INCLUDE / "Reporter.h")
    enum = re.search(r"enum ReportSlot : unsigned \{(.*?)\};", text, re.S)
    assert enum, "Reporter.h has no `enum ReportSlot`"
    slots = dict((name, int(value)) for name, value in
                 re.findall(r"(k\w+Slot)\s*=\s*(\d+)", enum.group(1)))
    listed = re.search(r"kAllReportSlots\[\]\s*=\s*\{(.*?)\};", text, re.S)
    assert listed, "Reporter.h has no kAllReportSlots"
    return slots, re.findall(r"k\w+Slot", listed.group(1))


def test_report_slots_are_distinct_and_listed():
    slots, listed = _slots()
    assert len(slots) >= 20
    by_number = {}
    for name, number in slots.items():
        by_number.setdefault(number, []).append(name)
    shared = {n: names for n, names in by_number.items() if len(names) > 1}
    assert not shared, f"report slots share a number: {shared}"
    assert sorted(listed) == sorted(slots), \
        f"kAllReportSlots must list every slot once: {sorted(set(slots) ^ set(listed))}"


def test_no_slot_number_at_a_call():
    slots, _ = _slots()
    call = re.compile(r"\.(report|note|clear)\(([^;]*?)\)", re.S)
    numbered = []
    for path in _sources():
        for m in call.finditer(_code(path)):
            args = [a.strip() for a in m.group(2).split(",")]
            if any(re.fullmatch(r"\d+u?", a) for a in args[1:3]):
                numbered.append(f"{path.name}: {m.group(0)[:60]}")
    assert not numbered, f"slot numbers at calls (use a ReportSlot): {numbered}"
