//===- MBarrierExtension.cpp - Python bindings of the mbarrier dialect ----===//
//
// Only the C API crosses into Python: types, dialect registration, passes.
// Op classes are ODS-generated Python (dialects/_mbarrier_ops_gen.py).
//
//===----------------------------------------------------------------------===//
#include "mbarrier-c/Dialect.h"

#include "mlir/Bindings/Python/Nanobind.h"
#include "mlir/Bindings/Python/NanobindAdaptors.h"

namespace nb = nanobind;
using namespace nb::literals;
using mlir::python::nanobind_adaptors::mlir_type_subclass;

template <typename GetFn, typename DepthFn>
static void defineBarrierType(nb::module_ &m, const char *name,
                              bool (*isA)(MlirType), MlirTypeID (*typeID)(),
                              GetFn get, DepthFn depth, const char *doc) {
  mlir_type_subclass(m, name, isA, typeID)
      .def_classmethod(
          "get",
          [get, name](const nb::object &cls, unsigned n, MlirContext ctx) {
            MlirType type = get(ctx, n);
            if (mlirTypeIsNull(type))
              throw nb::value_error(
                  (std::string(name) +
                   ".get: an mbarrier group needs at least one barrier")
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

  defineBarrierType(mbarrier, "GroupType", mlirTypeIsAMBarrierGroupType,
                    mlirMBarrierGroupTypeGetTypeID, mlirMBarrierGroupTypeGet,
                    mlirMBarrierGroupTypeGetDepth,
                    "!mbarrier.group<depth>: barriers owned by this CTA.");
  defineBarrierType(mbarrier, "RemoteType", mlirTypeIsAMBarrierRemoteType,
                    mlirMBarrierRemoteTypeGetTypeID, mlirMBarrierRemoteTypeGet,
                    mlirMBarrierRemoteTypeGetDepth,
                    "!mbarrier.remote<depth>: a view of another CTA's barriers.");
}
