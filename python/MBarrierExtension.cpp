//===- MBarrierExtension.cpp - Python bindings of the mbarrier dialect ----===//
//
// Only the C API crosses into Python: types, dialect registration, passes.
// Op classes are ODS-generated Python (dialects/_mbarrier_ops_gen.py).
//
//===----------------------------------------------------------------------===//
#include "mbarrier-c/Dialect.h"

#include "mlir/Bindings/Python/Nanobind.h"
#include "mlir/Bindings/Python/NanobindAdaptors.h"
#include "mlir-c/Diagnostics.h"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <string>
#include <vector>

namespace nb = nanobind;
using namespace nb::literals;
using mlir::python::nanobind_adaptors::mlir_type_subclass;

/// Collects the diagnostics a C API call emits on `ctx` (instead of letting
/// the default handler print them to stderr), so that the Python exception
/// carries the real message.
class DiagnosticCapture {
public:
  explicit DiagnosticCapture(MlirContext ctx) : ctx(ctx) {
    id = mlirContextAttachDiagnosticHandler(ctx, &handle, this, nullptr);
  }
  ~DiagnosticCapture() { mlirContextDetachDiagnosticHandler(ctx, id); }
  const std::string &messages() const { return text; }

private:
  static MlirLogicalResult handle(MlirDiagnostic diag, void *self) {
    auto *capture = static_cast<DiagnosticCapture *>(self);
    if (!capture->text.empty())
      capture->text += "\n";
    mlirDiagnosticPrint(
        diag,
        [](MlirStringRef part, void *out) {
          static_cast<std::string *>(out)->append(part.data, part.length);
        },
        &capture->text);
    return mlirLogicalResultSuccess();
  }
  MlirContext ctx;
  MlirDiagnosticHandlerID id;
  std::string text;
};

template <typename GetFn, typename DepthFn>
static void defineBarrierType(nb::module_ &m, const char *name,
                              bool (*isA)(MlirType), MlirTypeID (*typeID)(),
                              GetFn get, DepthFn depth, const char *doc) {
  mlir_type_subclass(m, name, isA, typeID)
      .def_classmethod(
          "get",
          [get, name](const nb::object &cls, unsigned n, MlirContext ctx) {
            MlirType type;
            std::string messages;
            {
              DiagnosticCapture capture(ctx);
              type = get(ctx, n);
              messages = capture.messages();
            }
            if (mlirTypeIsNull(type))
              throw nb::value_error(
                  (std::string(name) + ".get(" + std::to_string(n) +
                   "): " + messages)
                      .c_str());
            return cls(type);
          },
          "cls"_a, "depth"_a, "context"_a = nb::none(), doc)
      .def_property_readonly(
          "depth", [depth](MlirType self) { return depth(self); },
          "The number of barriers N.");
}

NB_MODULE(_mbarrierDialects, m) {
  m.doc() = "Native part of mbarrier_dialect: types, registration, passes.";
  nb::module_ mbarrier = m.def_submodule("mbarrier");

  mbarrier.def(
      "register_dialect",
      [](MlirContext context, bool load) {
        MlirDialectHandle handle = mlirGetDialectHandle__mbarrier__();
        mlirDialectHandleRegisterDialect(handle, context);
        if (load)
          mlirDialectHandleLoadDialect(handle, context);
      },
      "context"_a = nb::none(), "load"_a = true,
      "Register (and load) the mbarrier dialect into a Context.");
  mbarrier.def("register_passes", &mlirMBarrierRegisterPasses,
               "Register convert-mbarrier-to-nvvm and mbarrier-to-ptx.");

  mbarrier.def(
      "nvptx_chips",
      [] {
        std::vector<std::string> chips;
        for (intptr_t i = 0, e = mlirMBarrierGetNumNVPTXChips(); i < e; ++i) {
          MlirStringRef chip = mlirMBarrierGetNVPTXChip(i);
          chips.emplace_back(chip.data, chip.length);
        }
        return chips;
      },
      "The chips (sm_*) the NVPTX backend of this process knows.");
  mbarrier.def(
      "nvptx_ptx_versions",
      [] {
        std::vector<unsigned> versions;
        for (intptr_t i = 0, e = mlirMBarrierGetNumNVPTXPTXVersions(); i < e;
             ++i)
          versions.push_back(mlirMBarrierGetNVPTXPTXVersion(i));
        return versions;
      },
      "The PTX ISA versions (x10, e.g. 86) the NVPTX backend knows.");
  mbarrier.def(
      "nvptx_min_ptx_version",
      [](const std::string &chip) -> std::optional<unsigned> {
        unsigned version = mlirMBarrierGetNVPTXMinPTXVersion(
            mlirStringRefCreate(chip.data(), chip.size()));
        if (!version)
          return std::nullopt;
        return version;
      },
      "chip"_a,
      "The PTX ISA version (x10) the backend emits for `chip` when no +ptxNN "
      "is given (the chip's minimum); None for an unknown chip.");

  mbarrier.def(
      "nvvm_target_chip",
      [](MlirAttribute attr) -> std::optional<std::string> {
        if (!mlirMBarrierAttributeIsANVVMTarget(attr))
          return std::nullopt;
        MlirStringRef chip = mlirMBarrierNVVMTargetGetChip(attr);
        return std::string(chip.data, chip.length);
      },
      "attr"_a,
      "The chip of an #nvvm.target attribute (sm_50 where it names none); "
      "None for any other attribute.");

  defineBarrierType(mbarrier, "GroupType", mlirTypeIsAMBarrierGroupType,
                    mlirMBarrierGroupTypeGetTypeID, mlirMBarrierGroupTypeGet,
                    mlirMBarrierGroupTypeGetDepth,
                    "!mbarrier.group<depth>: barriers owned by this CTA.");
  defineBarrierType(mbarrier, "RemoteType", mlirTypeIsAMBarrierRemoteType,
                    mlirMBarrierRemoteTypeGetTypeID, mlirMBarrierRemoteTypeGet,
                    mlirMBarrierRemoteTypeGetDepth,
                    "!mbarrier.remote<depth>: a view of another CTA's barriers.");
}
