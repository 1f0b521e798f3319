//===- NVPTXTargets.cpp - chips and PTX versions, asked of the backend ----===//
#include "mbarrier/Target/NVPTX/NVPTXTargets.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"

#include <map>
#include <memory>
#include <mutex>

extern "C" {
void LLVMInitializeNVPTXTargetInfo();
void LLVMInitializeNVPTXTarget();
void LLVMInitializeNVPTXTargetMC();
void LLVMInitializeNVPTXAsmPrinter();
}

using namespace mlir;
using namespace mlir::mbarrier;

static constexpr const char *kTriple = "nvptx64-nvidia-cuda";

static const llvm::Target *getNVPTXTarget() {
  static const llvm::Target *target = [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
    std::string error;
    return llvm::TargetRegistry::lookupTarget(llvm::Triple(kTriple), error);
  }();
  return target;
}

/// The backend's subtarget tables (the processor and feature lists).
static const llvm::MCSubtargetInfo *getTables() {
  static std::unique_ptr<llvm::MCSubtargetInfo> info = [] {
    const llvm::Target *target = getNVPTXTarget();
    return std::unique_ptr<llvm::MCSubtargetInfo>(
        target ? target->createMCSubtargetInfo(llvm::Triple(kTriple), "sm_90", "")
               : nullptr);
  }();
  return info.get();
}

const std::vector<std::string> &mbarrier::getNVPTXChips() {
  static std::vector<std::string> chips = [] {
    std::vector<std::string> result;
    if (const llvm::MCSubtargetInfo *info = getTables())
      for (const llvm::SubtargetSubTypeKV &proc :
           info->getAllProcessorDescriptions())
        if (StringRef(proc.Key).starts_with("sm_"))
          result.push_back(proc.Key);
    // By number (sm_90 before sm_100), then suffix (sm_90, sm_90a).
    auto key = [](StringRef chip) {
      StringRef digits = chip.drop_front(3);
      unsigned number = 0;
      size_t length = digits.find_if([](char c) { return !llvm::isDigit(c); });
      digits.take_front(length).getAsInteger(10, number);
      return std::make_pair(number, digits.drop_front(
                                        std::min(length, digits.size())));
    };
    llvm::stable_sort(result, [&](const std::string &a, const std::string &b) {
      return key(a) < key(b);
    });
    return result;
  }();
  return chips;
}

const std::vector<unsigned> &mbarrier::getNVPTXPTXVersions() {
  static std::vector<unsigned> versions = [] {
    std::vector<unsigned> result;
    if (const llvm::MCSubtargetInfo *info = getTables())
      for (const llvm::SubtargetFeatureKV &feature :
           info->getAllProcessorFeatures()) {
        StringRef key(feature.Key);
        unsigned version;
        if (key.consume_front("ptx") && !key.getAsInteger(10, version))
          result.push_back(version);
      }
    llvm::sort(result);
    return result;
  }();
  return versions;
}

std::optional<unsigned> mbarrier::roundUpPTXVersion(unsigned version) {
  for (unsigned known : getNVPTXPTXVersions())
    if (known >= version)
      return known;
  return std::nullopt;
}

/// Emits an empty module for `chip` with no features and reads the
/// `.version` line: the backend's own minimum for the chip.
static std::optional<unsigned> askBackendMinPTX(StringRef chip) {
  const llvm::Target *target = getNVPTXTarget();
  if (!target)
    return std::nullopt;
  llvm::Triple triple(kTriple);
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, chip, "", llvm::TargetOptions(), std::nullopt));
  if (!machine)
    return std::nullopt;
  llvm::LLVMContext context;
  llvm::Module module("mbarrier-ptx-version-probe", context);
  module.setTargetTriple(triple);
  module.setDataLayout(machine->createDataLayout());
  llvm::SmallString<256> ptx;
  llvm::raw_svector_ostream stream(ptx);
  llvm::legacy::PassManager pm;
  if (machine->addPassesToEmitFile(pm, stream, nullptr,
                                   llvm::CodeGenFileType::AssemblyFile))
    return std::nullopt;
  pm.run(module);
  StringRef text(ptx);
  size_t at = text.find(".version ");
  if (at == StringRef::npos)
    return std::nullopt;
  StringRef version = text.substr(at + 9).take_until(
      [](char c) { return c == '\n' || c == '\r'; });
  auto [major, minor] = version.split('.');
  unsigned hi, lo;
  if (major.trim().getAsInteger(10, hi) || minor.trim().getAsInteger(10, lo))
    return std::nullopt;
  return hi * 10 + lo;
}

std::optional<unsigned> mbarrier::getNVPTXMinPTXVersion(StringRef chip) {
  if (!llvm::is_contained(getNVPTXChips(), chip))
    return std::nullopt;
  static std::mutex mutex;
  static std::map<std::string, std::optional<unsigned>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto [it, inserted] = cache.try_emplace(chip.str());
  if (inserted)
    it->second = askBackendMinPTX(chip);
  return it->second;
}

static std::string formatPTX(unsigned version) {
  return std::to_string(version / 10) + "." + std::to_string(version % 10);
}

FailureOr<NVPTXTarget>
mbarrier::parseNVPTXTarget(StringRef chip, StringRef features,
                           function_ref<InFlightDiagnostic()> emitError) {
  std::optional<unsigned> minPtx = getNVPTXMinPTXVersion(chip);
  if (!minPtx) {
    InFlightDiagnostic diag = emitError();
    diag << "unknown chip '" << chip
         << "': expected one the NVPTX backend knows (";
    llvm::interleave(getNVPTXChips(), diag, " ");
    return diag << ")";
  }
  NVPTXTarget target;
  target.chip = chip.str();
  target.features = features.str();
  target.minPtx = *minPtx;
  StringRef digits = chip.drop_front(3);
  target.archSpecific = digits.consume_back("a");
  digits.consume_back("f");
  digits.getAsInteger(10, target.sm);

  SmallVector<StringRef> parts;
  features.split(parts, ',', -1, /*KeepEmpty=*/true);
  if (features.trim().empty())
    parts.clear();
  for (StringRef part : parts) {
    StringRef feature = part.trim();
    unsigned version;
    StringRef name = feature;
    if (!name.consume_front("+ptx") || name.empty() ||
        name.getAsInteger(10, version))
      return emitError() << "malformed target features '" << features
                         << "': the NVPTX target takes one PTX ISA version, "
                            "written +ptxNN (e.g. +ptx86), or nothing to "
                            "derive the lowest version the chip and the ops need";
    if (!llvm::is_contained(getNVPTXPTXVersions(), version)) {
      InFlightDiagnostic diag = emitError();
      diag << "unknown PTX ISA version in target features '" << features
           << "': this NVPTX backend knows";
      for (unsigned known : getNVPTXPTXVersions())
        diag << " +ptx" << known;
      return diag;
    }
    if (target.explicitPtx)
      return emitError() << "target features '" << features
                         << "' name more than one PTX ISA version";
    target.explicitPtx = version;
  }
  if (target.explicitPtx && *target.explicitPtx < *minPtx)
    return emitError() << "target features '" << features
                       << "' ask for PTX ISA " << formatPTX(*target.explicitPtx)
                       << ", but " << chip << " needs at least PTX ISA "
                       << formatPTX(*minPtx) << ": raise it to +ptx" << *minPtx
                       << ", or give no features to get the lowest version "
                          "the chip and the ops need";
  return target;
}
