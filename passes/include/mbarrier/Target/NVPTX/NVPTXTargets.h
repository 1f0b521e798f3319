//===- NVPTXTargets.h - chips and PTX versions, asked of the backend -*- C++ -*-===//
//
// Which chips and PTX ISA versions exist is not written down here: it is
// asked of the NVPTX backend linked into this process (its processor and
// feature tables, and the `.version` it emits for a chip). A target the
// backend would abort on (a PTX version below the chip's minimum, an unknown
// version or feature) is a located error instead.
//
//===----------------------------------------------------------------------===//
#ifndef MBARRIER_CONVERSION_NVPTXTARGETS_H
#define MBARRIER_CONVERSION_NVPTXTARGETS_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/Support/LLVM.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::mbarrier {

/// The pipeline's default chip. The default features are empty: the PTX ISA
/// version is then derived (the lowest that the chip and the ops need).
inline constexpr const char *kDefaultChip = "sm_90";

/// The chip of an `#nvvm.target` attribute (its default, sm_50, where it
/// names none); None for any other attribute. What the frontends read from a
/// module's targets instead of its printed form.
std::optional<StringRef> getNVVMTargetChip(Attribute attr);

/// The chips (`sm_*` processors) the NVPTX backend knows, in its order.
const std::vector<std::string> &getNVPTXChips();

/// The PTX ISA versions (x10, ascending) the backend has a `+ptxNN` feature for.
const std::vector<unsigned> &getNVPTXPTXVersions();

/// The PTX ISA version (x10) the backend emits for `chip` when no `+ptxNN`
/// is given: the chip's minimum. None for a chip the backend does not know.
std::optional<unsigned> getNVPTXMinPTXVersion(StringRef chip);

/// A validated NVVM target.
struct NVPTXTarget {
  std::string chip;
  std::string features;
  unsigned sm = 0;            // 90 for sm_90, sm_90a and sm_90f
  bool archSpecific = false;  // the `a` of sm_90a / sm_100a
  unsigned minPtx = 0;        // the chip's minimum PTX version (x10)
  std::optional<unsigned> explicitPtx; // from `+ptxNN`
  /// The PTX version the backend will emit.
  unsigned ptx() const { return explicitPtx.value_or(minPtx); }
};

/// Parses and validates a chip and its feature string. `emitError` is called
/// (once) to report an unknown chip, a malformed feature string, an unknown
/// PTX version, or one below the chip's minimum.
FailureOr<NVPTXTarget>
parseNVPTXTarget(StringRef chip, StringRef features,
                 function_ref<InFlightDiagnostic()> emitError);

/// The smallest PTX version the backend knows that is >= `version`.
std::optional<unsigned> roundUpPTXVersion(unsigned version);

} // namespace mlir::mbarrier

#endif // MBARRIER_CONVERSION_NVPTXTARGETS_H
