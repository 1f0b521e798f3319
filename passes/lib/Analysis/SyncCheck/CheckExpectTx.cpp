//===- CheckExpectTx.cpp - expect-tx bytes against copied bytes (class 6) -===//
//
// Per barrier, the transaction bytes that arrive_expect_tx / expect_tx post
// against the bytes of the bulk copies that complete on it (Counter.h
// collects both):
//
// - in one context (the innermost loop around them, or the function), per
//   CTA: more expected than copied never completes the phase, fewer
//   completes it before the data has landed (checkBytes); with a barrier
//   index that differs between the threads, per thread (a ring per warp:
//   checkBytesPerThread); with byte counts that do not evaluate (a kernel
//   parameter), as linear forms where all run once in one block
//   (checkBytesSymbolic);
// - across contexts (a persistent tile loop that issues each tile's first
//   k-step before its k loop, the others in it under a condition on the k
//   index): per *step*, an arrive_expect_tx and the copies onto the same
//   barrier in its block, where every phase of the group's barriers is one
//   such step (checkBytesPerStep).
//
// An error where a wait on the barrier follows in every instance of the
// protocol model that an error speaks for (bytesSeverity), else a warning.
// Why fewer expected bytes than copied is an error there: a phase completes
// when its pending arrivals and its tx-count are both zero, and the
// tx-count, raised by the expected bytes, falls by the bytes whose
// complete-tx has come; it reaches zero when exactly the expected bytes
// have, so in every launch the phase completes while the other copies'
// complete-tx is still to come. The wait that returns for it is ordered
// after those bytes only (a bulk copy's writes are made visible to a
// waiting thread by the complete-tx of the phase it observes), so its reads
// of the rest race with the copies' writes in every launch, as class 18's
// read before its cp.async group completes; and the surplus complete-tx
// counts against the barrier's next phase.
//
//===----------------------------------------------------------------------===//
#include "Counter.h"
#include "mbarrier/Analysis/SyncCheck/UpstreamOps.h"

using namespace mlir;
using namespace mlir::mbarrier;
using namespace mlir::mbarrier::checksync;
using namespace mlir::mbarrier::checksync::counting;
using Severity = Reporter::Severity;

/// Whether, in straight-line code (every arrival on the group and a wait
/// for phase 0 outside any loop), CTA `rank`'s barrier of `key` gets no more
/// arrivals than its count in the whole kernel (its one phase is the one the
/// bytes are for) and threads of that CTA wait for that phase: every launch
/// runs the wait.
bool Counter::firstPhaseWaitedOnce(const BarrierKey &key, int64_t rank) {
  Operation *whole = fn.getOperation();
  std::optional<int64_t> count = initCount(key);
  if (!count)
    return false;
  PerRank total(model.ranks(), 0);
  for (const Event &a : arrivals) {
    if (a.key.root != key.root)
      continue;
    if (a.context != whole || !a.key.sameAs(key))
      return false;
    const std::optional<PerRank> &amounts = perRankOnce(a);
    if (!amounts)
      return false;
    for (int64_t r = 0; r < model.ranks(); ++r)
      total[r] += (*amounts)[r];
  }
  if (llvm::any_of(total, [&](int64_t t) { return t > *count; }))
    return false;
  return llvm::any_of(waits, [&](Operation *w) {
    auto wait = dyn_cast<WaitOp>(w);
    if (!wait || !barrierOf(w)->sameAs(key) || contextOf(w, fn) != whole)
      return false;
    std::optional<int64_t> phase = constantOf(wait.getPhase());
    const ExecSet &set = model.execSet(w);
    return phase && ((*phase ^ wait.getPhaseOffset()) & 1) == 0 && set &&
           (rank < 0 ? set->any() : model.hasRank(*set, rank));
  });
}

Severity Counter::bytesSeverity(ArrayRef<const Event *> group,
                                const BarrierKey &key, int64_t rank) {
  if (!waited(key.root))
    return Severity::Warning;
  if (!protocolModel().ok())
    return group.front()->context == fn.getOperation() &&
                   firstPhaseWaitedOnce(key, rank)
               ? Severity::Error
               : Severity::Warning;
  bool byArrivals = llvm::any_of(
      group, [](const Event *e) { return isa<ArriveExpectTxOp>(e->op); });
  auto bringsBytes = [&](Operation *op) {
    return llvm::any_of(group, [&](const Event *e) { return e->op == op; });
  };
  auto mayWaitOn = [&](Operation *wait) {
    std::optional<BarrierKey> on = barrierOf(wait);
    return on && on->root == key.root && !on->differentFrom(key);
  };
  return waitedEvery(protocolModel(), bringsBytes, byArrivals, mayWaitOn)
             ? Severity::Error
             : Severity::Warning;
}

void Counter::checkBytes() {
  // Only barriers whose transaction bytes all come and go in one context.
  forEachBarrier(bytes, [&](Operation *ctx, ArrayRef<const Event *> group) {
    const BarrierKey &key = group.front()->key;
    if (llvm::is_contained(openTx, key.root) || !closedWorld(key.root))
      return;
    auto other = [&](const Event &e) {
      return e.key.root == key.root && e.context != ctx;
    };
    if (llvm::any_of(bytes, other) || llvm::any_of(copies, other))
      return;
    SmallVector<const Event *> landing;
    for (const Event &c : copies) {
      if (c.key.root != key.root)
        continue;
      if (!c.key.sameAs(key)) {
        if (!c.key.differentFrom(key))
          return; // may alias
        continue;
      }
      landing.push_back(&c);
    }
    int64_t ranks = model.ranks();
    PerRank expected(ranks, 0), brought(ranks, 0);
    for (const Event *e : group) {
      std::optional<PerRank> amounts = perRank(*e);
      if (!amounts) {
        if (checkBytesSymbolic(group, landing, key))
          return;
        return checkBytesPerThread(group, landing);
      }
      for (int64_t r = 0; r < ranks; ++r)
        expected[r] += (*amounts)[r];
    }
    for (const Event *c : landing) {
      std::optional<PerRank> amounts = perRank(*c);
      if (!amounts) {
        checkBytesSymbolic(group, landing, key);
        return;
      }
      for (int64_t r = 0; r < ranks; ++r)
        brought[r] += (*amounts)[r];
    }
    for (int64_t r = 0; r < ranks; ++r) {
      if (expected[r] == brought[r])
        continue;
      Severity severity = bytesSeverity(group, key, r);
      std::string where = model.clusterDeclared()
                              ? " of CTA " + std::to_string(r)
                              : std::string();
      if (expected[r] > brought[r])
        out.report(group.front()->op, severity, kExpectTxSlot)
            << "expects " << expected[r] << " transaction bytes on the barrier"
            << where << ", but the bulk copies that complete on it bring "
            << brought[r] << " bytes: the phase never completes";
      else
        out.report(group.front()->op, severity, kExpectTxSlot)
            << "expects " << expected[r] << " transaction bytes on the barrier"
            << where << ", but the bulk copies that complete on it bring "
            << brought[r]
            << " bytes: the phase can complete before all the data has landed";
      return;
    }
  });
}

namespace {
/// A sum of constant multiples of SSA values, plus a constant.
struct LinearForm {
  llvm::DenseMap<Value, int64_t> terms;
  int64_t constant = 0;
};
} // namespace

/// Adds `scale` x `v` to `form`, through integer additions and
/// multiplications by a constant; anything else is a term of its own.
static void addLinear(Value v, int64_t scale, LinearForm &form,
                      unsigned depth = 0) {
  if (std::optional<int64_t> c = constantOf(v)) {
    form.constant += scale * *c;
    return;
  }
  Operation *def = v.getDefiningOp();
  if (def && depth < 16 && isIntegerAdd(def)) {
    addLinear(def->getOperand(0), scale, form, depth + 1);
    addLinear(def->getOperand(1), scale, form, depth + 1);
    return;
  }
  if (def && depth < 16 && isIntegerMul(def))
    for (unsigned i = 0; i < 2; ++i)
      if (std::optional<int64_t> c = constantOf(def->getOperand(i))) {
        addLinear(def->getOperand(1 - i), scale * *c, form, depth + 1);
        return;
      }
  form.terms[v] += scale;
}

/// The byte counts of the expect-tx ops and of the copies do not evaluate,
/// yet every one of them runs once, unconditionally, in one block, by the
/// same threads, on the executing CTA's own barrier: then each thread's
/// expected bytes less its copies' bytes is one linear form over the SSA
/// values of that block's execution, and where it is a nonzero constant the
/// bytes differ by it for every value of the kernel parameters (each
/// thread's surplus adds up per CTA). Returns whether it decided.
bool Counter::checkBytesSymbolic(ArrayRef<const Event *> group,
                                 ArrayRef<const Event *> landing,
                                 const BarrierKey &key) {
  if (landing.empty())
    return false;
  Block *block = group.front()->op->getBlock();
  const ExecSet &set = model.execSet(group.front()->op);
  if (!set || set->none())
    return false;
  LinearForm diff;
  auto add = [&](const Event *e, int64_t sign) {
    if (e->op->getBlock() != block || e->pred || e->mask || !e->local ||
        (!e->key.constIndex && !model.uniform(e->key.index)))
      return false;
    const ExecSet &s = model.execSet(e->op);
    if (!s || *s != *set)
      return false;
    if (e->amount)
      addLinear(e->amount, sign, diff);
    else
      diff.constant += sign * e->constAmount.value_or(0);
    return true;
  };
  for (const Event *e : group)
    if (!add(e, 1))
      return false;
  for (const Event *c : landing)
    if (!add(c, -1))
      return false;
  if (llvm::any_of(diff.terms, [](auto &t) { return t.second != 0; }))
    return false;
  if (diff.constant == 0)
    return true;
  int64_t rank = model.point(set->find_first()).rank;
  Severity severity = bytesSeverity(group, key, rank);
  int64_t more = diff.constant > 0 ? diff.constant : -diff.constant;
  if (diff.constant > 0)
    out.report(group.front()->op, severity, kExpectTxSlot)
        << "expects " << more
        << " transaction bytes more than the bulk copies that complete on "
           "the barrier bring, for every value of the kernel parameters: "
           "the phase never completes";
  else
    out.report(group.front()->op, severity, kExpectTxSlot)
        << "expects " << more
        << " transaction bytes fewer than the bulk copies that complete on "
           "the barrier bring, for every value of the kernel parameters: "
           "the phase can complete before all the data has landed";
  return true;
}

/// An amount per point of `e`'s executing set (where its `if %pred`
/// holds), for an op on its own CTA's barrier; none where one does not
/// evaluate.
static std::optional<llvm::DenseMap<unsigned, int64_t>>
perPoint(const Event &e, SPMDModel &model) {
  const ExecSet &set = model.execSet(e.op);
  if (!set || !e.local || e.mask || e.rank)
    return std::nullopt;
  llvm::DenseMap<unsigned, int64_t> result;
  if (!forEachActing(e, *set, model, [&](unsigned b, Point, int64_t amount) {
        result[b] += amount;
        return true;
      }))
    return std::nullopt;
  return result;
}

void Counter::checkBytesPerThread(ArrayRef<const Event *> group,
                                  ArrayRef<const Event *> landing) {
  // A barrier index that differs between the threads (a stage per warp:
  // DeepEP's lane 0 of each warp on its own ring): where each thread
  // expects bytes and copies onto the barrier of the same index value
  // (the same SSA index, in the same trip), and every thread's expected
  // bytes exceed (or fall short of) its copies', every barrier it reaches
  // does the same.
  const BarrierKey &key = group.front()->key;
  if (key.constIndex || landing.empty())
    return;
  llvm::DenseMap<unsigned, int64_t> expected, brought;
  auto add = [&](ArrayRef<const Event *> events,
                 llvm::DenseMap<unsigned, int64_t> &into) {
    for (const Event *e : events) {
      if (e->key.index != key.index)
        return false;
      std::optional<llvm::DenseMap<unsigned, int64_t>> amounts =
          perPoint(*e, model);
      if (!amounts)
        return false;
      for (auto [b, a] : *amounts)
        into[b] += a;
    }
    return true;
  };
  if (!add(group, expected) || !add(landing, brought) || expected.empty())
    return;
  int64_t more = 0, fewer = 0;
  std::optional<int64_t> shownExpected, shownBrought;
  for (auto [b, a] : expected) {
    int64_t c = brought.lookup(b);
    more += a > c;
    fewer += a < c;
    if (!shownExpected) {
      shownExpected = a;
      shownBrought = c;
    }
  }
  for (auto [b, c] : brought)
    if (!expected.count(b))
      return; // copies by threads that expect nothing: not paired
  Severity severity = bytesSeverity(group, key);
  if (more && !fewer && more == static_cast<int64_t>(expected.size()))
    out.report(group.front()->op, severity, kExpectTxSlot)
        << "expects " << *shownExpected
        << " transaction bytes on the barrier each of its threads addresses, "
           "but the bulk copies that complete on it bring "
        << *shownBrought << " bytes: the phase never completes";
  else if (fewer && !more && fewer == static_cast<int64_t>(expected.size()))
    out.report(group.front()->op, severity, kExpectTxSlot)
        << "expects " << *shownExpected
        << " transaction bytes on the barrier each of its threads addresses, "
           "but the bulk copies that complete on it bring "
        << *shownBrought
        << " bytes: the phase can complete before all the data has landed";
}


/// The bytes (or, for an arrival, the arrivals) of one execution of `e` by
/// one thread: a stated amount or a constant one; none otherwise.
static std::optional<int64_t> constantAmount(const Event &e) {
  if (!e.amount)
    return e.constAmount.value_or(1);
  return constantOf(e.amount);
}

void Counter::checkBytesPerStep() {
  // A group whose every barrier counts one arrival, and whose every arrival
  // is an arrive_expect_tx of the executing thread's own CTA, with no
  // predicate, in a block that also issues the bulk copies onto that
  // barrier (the same index value), and every copy onto the group is in
  // such a block: each phase of a barrier is one arrival (a second one in
  // the same phase would take the pending count below zero), so it is the
  // expect-tx of one step and the copies of that step, while the steps
  // whose bytes match their copies complete each phase with their own
  // copies only. A step whose expected bytes differ from its copies' then
  // never completes its phase (more) or completes it early (fewer), where
  // no step differs the other way (its surplus would run into a later
  // phase). Only for groups whose bytes are not all in one context
  // (checkBytes counts those).
  SmallVector<Value> roots;
  for (const Event &b : bytes)
    if (!llvm::is_contained(roots, b.key.root))
      roots.push_back(b.key.root);
  for (Value root : roots) {
    if (!root || llvm::is_contained(openTx, root) || !closedWorldOnce(root))
      continue;
    SmallVector<const Event *> expects, landing;
    for (const Event &b : bytes)
      if (b.key.root == root)
        expects.push_back(&b);
    for (const Event &c : copies)
      if (c.key.root == root)
        landing.push_back(&c);
    auto oneContext = [&](const Event *e) {
      return e->context == expects.front()->context;
    };
    if (landing.empty() || (llvm::all_of(expects, oneContext) &&
                            llvm::all_of(landing, oneContext)))
      continue;
    initCount(expects.front()->key); // fills initsByRoot
    auto inits = initsByRoot.lookup(root);
    if (inits.empty() || llvm::any_of(inits, [](auto &init) {
          return constantOf(init.first.getCount()) != 1;
        }))
      continue;
    // Every arrival on the group is one of the expects, and each expect
    // is one arrival of its thread.
    bool steps = llvm::all_of(arrivals, [&](const Event &a) {
      if (a.key.root != root)
        return true;
      return isa<ArriveExpectTxOp>(a.op) && a.local && !a.pred &&
             constantAmount(a) == 1;
    });
    steps &= llvm::all_of(expects, [&](const Event *e) {
      return isa<ArriveExpectTxOp>(e->op) && e->local && !e->pred &&
             constantAmount(*e);
    });
    if (!steps)
      continue;
    // Each copy to the one expect of its block on the same barrier.
    llvm::DenseMap<const Event *, int64_t> brought;
    for (const Event *c : landing) {
      std::optional<int64_t> size = constantAmount(*c);
      const Event *step = nullptr;
      for (const Event *e : expects) {
        if (e->op->getBlock() != c->op->getBlock() ||
            e->key.differentFrom(c->key))
          continue;
        if (step || !e->key.sameAs(c->key)) {
          step = nullptr; // two expects, or one that may alias
          break;
        }
        step = e;
      }
      if (!step || !size || !c->local || c->mask || c->pred) {
        steps = false;
        break;
      }
      brought[step] += *size;
    }
    if (!steps)
      continue;
    SmallVector<const Event *> more, fewer;
    for (const Event *e : expects) {
      int64_t expected = *constantAmount(*e);
      if (expected > brought.lookup(e))
        more.push_back(e);
      else if (expected < brought.lookup(e))
        fewer.push_back(e);
    }
    if (!more.empty() && !fewer.empty())
      continue;
    more.append(fewer);
    for (const Event *e : more) {
      Severity severity = bytesSeverity({e}, e->key);
      Reporter::Message message = out.report(e->op, severity, kExpectTxSlot);
      message << "expects " << *constantAmount(*e)
              << " transaction bytes on the barrier, but the bulk copies of "
                 "its step (its block) bring "
              << brought.lookup(e)
              << " bytes, and every phase of the barrier is one such step "
                 "(one arrive_expect_tx, the only arrival its count of 1 "
                 "takes, and the copies issued with it): ";
      if (fewer.empty())
        message << "the phase never completes";
      else
        message << "the phase can complete before all the data has landed";
    }
  }
}
