//===- ExecutionSimulator.h - Discrete-event step simulation ----*- C++ -*-===//
//
// The execution simulator of Andreassen's device-placement thesis (§3.1.1,
// Algorithms 4-7): a discrete-event simulation of one training step (forward
// and backward passes, the weight update on the device that holds the
// weights) of an OpGraph placed on a DeviceNetwork.
//
//  - every device has a FIFO operation queue, every channel a FIFO transfer
//    queue (assumption A3); an idle device or channel that receives work gets
//    a `wakeup` event, which starts the first queued item;
//  - `op_done` sends the op's output to every other device that runs one of
//    its consumers (once per device) and makes local consumers ready;
//    `transfer_done` forwards a tensor along its route or delivers it;
//  - the event queue is ordered by end time, then by creation order, so equal
//    times are handled in a fixed order and a run is deterministic;
//  - op time = FLOPs / (peak x computeEfficiency); transfer time = bytes /
//    (bandwidth x efficiency), per hop, store and forward (the thesis's
//    conventions; SimulationOptions::conventions may select the peer's,
//    Conventions.h);
//  - memory: weights for the whole step, activations from the forward op
//    until the backward ops that read them are done, gradients from their
//    production until their consumer's backward op is done;
//  - several batches may be in flight (pipelined mode): batch k+1 enters
//    when fewer than `batchesInFlight` batches are running and every device
//    of an input op is idle (the thesis's rule); ops and events carry their
//    batch.
//
// A simulator is built once per graph and network and reused for many
// placements: run() allocates nothing once warm.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_DEVICES_EXECUTIONSIMULATOR_H
#define DSM_CORE_DEVICES_EXECUTIONSIMULATOR_H

#include "dsm/Core/Devices/Conventions.h"
#include "dsm/Core/Devices/DeviceNetwork.h"
#include "dsm/Core/Devices/OpGraph.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace dsm::core::devices {

struct SimulationOptions {
  /// Forward, backward and update passes; false simulates inference.
  bool training = true;
  /// Batches simulated in total.
  int32_t batches = 1;
  /// Batches allowed in the system at once (pipelined mode when > 1).
  int32_t batchesInFlight = 1;
  /// Fraction of peak FLOP/s achieved (the thesis's computation penalty:
  /// 0.9 in its experiments).
  double computeEfficiency = 0.9;
  /// Fraction of each device's memory a placement may use.
  double usableMemoryFraction = 1.0;
  /// Keep every op and transfer for a trace.
  bool recordTrace = false;
  /// How work becomes time (the graph's op costs must have been made with
  /// the same conventions).
  Conventions conventions;
};

enum class PassKind : uint8_t { Forward, Backward };

/// One interval of the schedule: an op on a device or a hop of a transfer
/// on a channel.
struct ScheduledItem {
  enum Kind : uint8_t { Operation, Transfer };
  Kind kind = Operation;
  PassKind pass = PassKind::Forward;
  int32_t batch = 0;
  /// The op run, or the op whose output (forward) or the op whose gradient
  /// (backward) is moved.
  int32_t op = 0;
  /// Device (operations) or channel (transfers).
  int32_t resource = 0;
  /// Transfers: the devices at the two ends of this hop.
  int32_t from = -1, to = -1;
  int64_t bytes = 0;
  double start = 0, end = 0; ///< seconds
};

struct SimulationResult {
  /// End of the last event (seconds).
  double makespan = 0;
  /// makespan / batches: the time of one step (averaged in pipelined mode).
  double stepTime = 0;
  /// Seconds each device computed / each channel transferred.
  std::vector<double> deviceBusy;
  std::vector<double> channelBusy;
  /// Highest bytes resident on each device at any time.
  std::vector<int64_t> peakMemory;
  /// Sum over devices of the peak above the usable memory.
  int64_t memoryOverflowBytes = 0;
  /// Transfers (whole tensors, counting each once however many hops) and
  /// their bytes.
  int64_t transfers = 0;
  int64_t transferredBytes = 0;
  /// wakeup, op_done and transfer_done events handled.
  int64_t events = 0;
  /// Filled when SimulationOptions::recordTrace.
  std::vector<ScheduledItem> schedule;

  /// Fitness per byte of overflow, in ms (Conventions::overflowMsPerByte).
  double overflowMsPerByte = 1e-6;

  /// The fitness the searches minimise (§3.2.2): the step time in
  /// milliseconds plus the memory overflow in MB (the thesis) or in bytes
  /// (Exprimo).
  double fitness() const {
    return stepTime * 1e3 + double(memoryOverflowBytes) * overflowMsPerByte;
  }
};

class ExecutionSimulator {
public:
  /// `graph` must have passed OpGraph::verify(options.batches) and `network`
  /// DeviceNetwork::finalize(); both must outlive the simulator.
  ExecutionSimulator(const OpGraph &graph, const DeviceNetwork &network,
                     const SimulationOptions &options);

  /// Simulates `placement` (a device per op). The result is valid until the
  /// next call.
  const SimulationResult &run(llvm::ArrayRef<int32_t> placement);

  /// The most seconds one op may take on a device, or one tensor on a
  /// channel: about 30 million years. A time beyond it (infinite when a
  /// device's peak, clock or efficiency is denormal) is not a plan, and a sum
  /// of such times would leave the doubles; searches would compare NaNs.
  static constexpr double kMaxItemSeconds = 1e15;
  /// A NodeError naming the first op whose time on some device, or whose
  /// output's time on some channel, exceeds kMaxItemSeconds; run() must not
  /// be called when this fails.
  llvm::Error checkTimes() const;

  const SimulationOptions &getOptions() const { return options; }

private:
  enum EventKind : uint8_t { WakeDevice, WakeChannel, OpDone, TransferDone };
  struct Event {
    double time;
    uint64_t sequence;
    double start;
    int32_t payload; ///< task id (ops) or transfer id
    int32_t resource;
    EventKind kind;
  };
  struct PendingTransfer {
    int32_t op;      ///< whose output (forward) or gradient (backward)
    int32_t batch;   ///< batch of the tensor
    int32_t to;      ///< final destination device
    int32_t at;      ///< device the tensor is on now
    int32_t hop;     ///< index into the route
    int32_t gradFor; ///< backward: the op receiving the gradient, else -1
    int64_t bytes;
    PassKind pass;
  };
  /// A FIFO over a vector: each item is queued once per run.
  struct Fifo {
    std::vector<int32_t> items;
    size_t head = 0;
    bool empty() const { return head == items.size(); }
    int32_t pop() { return items[head++]; }
    void clear() {
      items.clear();
      head = 0;
    }
  };

  void push(EventKind kind, double start, double end, int32_t resource,
            int32_t payload);
  void enqueueTask(int32_t task, double now);
  void enqueueTransfer(int32_t transfer, double now);
  void startTask(int32_t device, double now);
  void startTransfer(int32_t channel, double now);
  void startBatch(int32_t batch, double now);
  void maybeStartBatch(double now);
  void onOpDone(const Event &event);
  void onTransferDone(const Event &event);
  void deliver(const PendingTransfer &transfer, double now);
  void taskFinished(int32_t task, double now);
  void allocate(int32_t device, int64_t bytes);
  void release(int32_t device, int64_t bytes);
  /// Drops one reference to the copy of (batch, op)'s output on `device`.
  void releaseActivation(int32_t batch, int32_t op, int32_t device);
  void readyBackward(int32_t batch, int32_t op, double now);

  int32_t taskId(int32_t batch, PassKind pass, int32_t op) const {
    return (batch * passes + int32_t(pass)) * numOps + op;
  }

  const OpGraph &graph;
  const DeviceNetwork &network;
  SimulationOptions options;
  int32_t numOps, numDevices, passes;
  /// Seconds of each pass of op o on device d: [pass][o * numDevices + d].
  std::vector<double> taskTime[2];
  /// Bytes per second each channel moves, and the least time of a transfer
  /// leaving each device (one clock cycle under Paleo's conventions).
  std::vector<double> channelRate, minTransferTime;
  std::vector<int32_t> inputOps;

  // Per-run state.
  llvm::ArrayRef<int32_t> placement;
  SimulationResult result;
  std::vector<Event> heap;
  uint64_t sequence = 0;
  std::vector<Fifo> deviceQueues, channelQueues;
  std::vector<uint8_t> deviceBusy, channelBusy;
  std::vector<PendingTransfer> transfers;
  std::vector<int32_t> pending;        ///< unmet inputs per task
  std::vector<int32_t> activationRefs; ///< per (batch, op, device)
  std::vector<uint8_t> gradientHeld;   ///< per (batch, op)
  std::vector<int64_t> memory;
  std::vector<int32_t> tasksLeft; ///< per batch
  std::vector<int32_t> sentStamp; ///< per device: last op_done sending there
  int32_t stampCounter = 0;
  int32_t batchesStarted = 0, batchesRunning = 0;
};

} // namespace dsm::core::devices

#endif // DSM_CORE_DEVICES_EXECUTIONSIMULATOR_H
