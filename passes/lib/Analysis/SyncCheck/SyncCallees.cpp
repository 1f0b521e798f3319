//===- SyncCallees.cpp - callees walked in their caller's context ---------===//
//
// A cluster sync, an init or a final cluster barrier done in a helper is
// part of the caller's protocol (docs/checker.md, "The analysis"). The
// checker therefore analyses a copy of each function in which every call
// to a function of the module with a one-block body is replaced by that
// body (arguments mapped to the call's operands, results to the values the
// body returns), recursively, except for recursion; the copied ops carry
// the location `callee op called from call site`. A call that stays (an
// external function, a recursive or multi-block callee, past the size
// bound) is *opaque*: the path analyses take it as something that may
// synchronize (CheckLifetime.cpp) and a group passed to it is not counted.
//
//===----------------------------------------------------------------------===//
#include "mbarrier/Analysis/SyncCheck/SyncModel.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"

using namespace mlir;
using namespace mlir::mbarrier;
using namespace mlir::mbarrier::checksync;

namespace {

/// Bounds on the copy: nesting of calls, and ops copied in all.
constexpr unsigned kMaxCallDepth = 16;
constexpr size_t kMaxInlinedOps = 100000;

/// The body to put in place of `call`, or null: a function of the module
/// (looked up from `anchor`, the original function) with one block that
/// ends in a return of as many values as the call has results (a body
/// that ends otherwise, `llvm.unreachable` say, does not return).
FunctionOpInterface inlinableCallee(CallOpInterface call, Operation *anchor) {
  auto symbol = dyn_cast_if_present<SymbolRefAttr>(call.getCallableForCallee());
  if (!symbol)
    return {};
  auto callee = dyn_cast_if_present<FunctionOpInterface>(
      SymbolTable::lookupNearestSymbolFrom(anchor, symbol));
  if (!callee || callee.isExternal() || !callee.getFunctionBody().hasOneBlock())
    return {};
  Block &body = callee.getFunctionBody().front();
  if (body.empty() || !body.back().hasTrait<OpTrait::ReturnLike>() ||
      body.getNumArguments() != call.getArgOperands().size() ||
      body.getTerminator()->getNumOperands() != call->getNumResults())
    return {};
  for (auto [arg, operand] : llvm::zip(body.getArguments(), call.getArgOperands()))
    if (arg.getType() != operand.getType())
      return {};
  for (auto [result, value] :
       llvm::zip(call->getResults(), body.getTerminator()->getOperands()))
    if (result.getType() != value.getType())
      return {};
  return callee;
}

class Inliner {
public:
  /// `fn`: the original function, whose module holds the callees.
  explicit Inliner(Operation *fn) : anchor(fn) { stack.push_back(fn); }

  /// Replaces the calls nested in `root` by their callees' bodies.
  void inlineCallsIn(Operation *root) {
    SmallVector<CallOpInterface> calls;
    root->walk([&](CallOpInterface call) { calls.push_back(call); });
    for (CallOpInterface call : calls)
      inlineCall(call);
  }

private:
  void inlineCall(CallOpInterface call) {
    FunctionOpInterface callee = inlinableCallee(call, anchor);
    if (!callee || stack.size() >= kMaxCallDepth ||
        llvm::is_contained(stack, callee.getOperation()))
      return;
    Block &body = callee.getFunctionBody().front();
    size_t size = 0;
    body.walk([&](Operation *) { ++size; });
    if (copied + size > kMaxInlinedOps)
      return;
    copied += size;

    IRMapping map;
    for (auto [arg, operand] : llvm::zip(body.getArguments(), call.getArgOperands()))
      map.map(arg, operand);
    OpBuilder builder(call);
    Location site = call->getLoc();
    SmallVector<Operation *> copies;
    for (Operation &op : body.without_terminator()) {
      Operation *copy = builder.clone(op, map);
      copy->walk([&](Operation *nested) {
        nested->setLoc(CallSiteLoc::get(nested->getLoc(), site));
      });
      copies.push_back(copy);
    }
    for (auto [result, value] :
         llvm::zip(call->getResults(), body.getTerminator()->getOperands()))
      result.replaceAllUsesWith(map.lookupOrDefault(value));
    call->erase();

    stack.push_back(callee);
    for (Operation *copy : copies)
      inlineCallsIn(copy);
    stack.pop_back();
  }

  Operation *anchor;
  SmallVector<Operation *> stack;
  size_t copied = 0;
};

} // namespace

Operation *checksync::inlineCallees(FunctionOpInterface fn) {
  bool any = fn->walk([&](CallOpInterface call) {
                 return inlinableCallee(call, fn) ? WalkResult::interrupt()
                                                  : WalkResult::advance();
               }).wasInterrupted();
  if (!any)
    return nullptr;
  Operation *copy = fn->clone();
  Inliner(fn).inlineCallsIn(copy);
  return copy;
}

bool checksync::isOpaqueCall(Operation *op) {
  auto call = dyn_cast<CallOpInterface>(op);
  if (!call)
    return false;
  // libdevice math and printf do not synchronize.
  if (auto symbol = dyn_cast_if_present<SymbolRefAttr>(call.getCallableForCallee())) {
    StringRef name = symbol.getLeafReference().getValue();
    if (name.starts_with("__nv_") || name == "vprintf")
      return false;
  }
  return true;
}
