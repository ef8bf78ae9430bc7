//===- ExecutionSimulator.cpp - Discrete-event simulation of a step -------===//

#include "dsm/Core/Devices/ExecutionSimulator.h"
#include "dsm/Core/Support/NodeError.h"

#include "llvm/Support/Format.h"

#include <algorithm>
#include <cassert>

using namespace dsm::core::devices;

namespace {
/// Min-heap order: earliest end first, then the event created first.
struct Later {
  template <typename E> bool operator()(const E &a, const E &b) const {
    if (a.time != b.time)
      return a.time > b.time;
    return a.sequence > b.sequence;
  }
};
} // namespace

ExecutionSimulator::ExecutionSimulator(const OpGraph &graph,
                                       const DeviceNetwork &network,
                                       const SimulationOptions &options)
    : graph(graph), network(network), options(options),
      numOps(int32_t(graph.size())),
      numDevices(int32_t(network.getNumDevices())),
      passes(options.training ? 2 : 1) {
  const Conventions &conventions = options.conventions;
  for (std::vector<double> &times : taskTime)
    times.resize(size_t(numOps) * size_t(numDevices));
  for (int32_t op = 0; op < numOps; ++op) {
    const Op &o = graph.getOp(op);
    if (o.inputs.empty())
      inputOps.push_back(op);
    for (int32_t d = 0; d < numDevices; ++d) {
      const ComputeDevice &device = network.getDevice(d);
      double rate = device.peakFlops * options.computeEfficiency;
      size_t slot = size_t(op) * size_t(numDevices) + size_t(d);
      if (!conventions.paleoOpTimes) {
        taskTime[0][slot] = o.forwardFlops / rate;
        taskTime[1][slot] = (o.backwardFlops + o.updateFlops) / rate;
        continue;
      }
      // Paleo: (FLOPs / peak + each array / memory bandwidth) / penalty,
      // every term at least a clock cycle; no FLOPs, no compute term.
      double cycle = device.clockHz > 0 ? 1.0 / device.clockHz : 0;
      double traffic = device.memoryBandwidth * conventions.bandwidthScale *
                       options.computeEfficiency;
      auto time = [&](double flops, llvm::ArrayRef<double> arrays) {
        double t = flops > 0 ? std::max(cycle, flops / rate) : 0;
        for (double bytes : arrays)
          t += std::max(cycle, traffic > 0 ? bytes / traffic : 0);
        return t;
      };
      taskTime[0][slot] = time(o.forwardFlops, o.forwardTraffic);
      taskTime[1][slot] =
          time(o.backwardFlops + o.updateFlops, o.backwardTraffic);
    }
  }
  for (const Channel &channel : network.getChannels())
    channelRate.push_back(
        channel.bandwidthBytesPerSecond * conventions.bandwidthScale *
        conventions.channelEfficiency.value_or(channel.efficiency));
  for (const ComputeDevice &device : network.getDevices())
    minTransferTime.push_back(conventions.paleoOpTimes && device.clockHz > 0
                                  ? 1.0 / device.clockHz
                                  : 0);
}

llvm::Error ExecutionSimulator::checkTimes() const {
  for (int32_t op = 0; op < numOps; ++op) {
    const Op &o = graph.getOp(op);
    for (int32_t d = 0; d < numDevices; ++d)
      for (int pass = 0; pass < passes; ++pass) {
        double seconds = taskTime[pass][size_t(op) * size_t(numDevices) + d];
        if (!(seconds <= kMaxItemSeconds))
          return makeNodeError(
              op, "'", o.name, "' would take ", llvm::format("%g", seconds),
              " s on device '", network.getDevice(d).name, "' (at most ",
              llvm::format("%g", kMaxItemSeconds),
              " s): its peak FLOP/s, clock or memory bandwidth, times the "
              "compute efficiency, is implausibly small");
      }
    for (auto [c, rate] : llvm::enumerate(channelRate)) {
      double seconds = double(o.outputBytes) / rate;
      if (!(seconds <= kMaxItemSeconds))
        return makeNodeError(
            op, "the output of '", o.name, "' would take ",
            llvm::format("%g", seconds), " s on channel '",
            network.getChannel(int32_t(c)).name, "' (at most ",
            llvm::format("%g", kMaxItemSeconds),
            " s): its bandwidth times its efficiency is implausibly small");
    }
  }
  return llvm::Error::success();
}

void ExecutionSimulator::push(EventKind kind, double start, double end,
                              int32_t resource, int32_t payload) {
  heap.push_back({end, sequence++, start, payload, resource, kind});
  std::push_heap(heap.begin(), heap.end(), Later());
}

void ExecutionSimulator::enqueueTask(int32_t task, double now) {
  int32_t device = placement[task % numOps];
  deviceQueues[device].items.push_back(task);
  if (!deviceBusy[device]) {
    deviceBusy[device] = 1;
    push(WakeDevice, now, now, device, -1);
  }
}

void ExecutionSimulator::enqueueTransfer(int32_t transfer, double now) {
  const PendingTransfer &t = transfers[transfer];
  int32_t channel = network.getNextChannel(t.at, t.to);
  channelQueues[channel].items.push_back(transfer);
  if (!channelBusy[channel]) {
    channelBusy[channel] = 1;
    push(WakeChannel, now, now, channel, -1);
  }
}

void ExecutionSimulator::startTask(int32_t device, double now) {
  int32_t task = deviceQueues[device].pop();
  int32_t pass = (task / numOps) % passes;
  double duration =
      taskTime[pass][size_t(task % numOps) * size_t(numDevices) + device];
  push(OpDone, now, now + duration, device, task);
}

void ExecutionSimulator::startTransfer(int32_t channel, double now) {
  int32_t transfer = channelQueues[channel].pop();
  const PendingTransfer &t = transfers[transfer];
  double duration =
      std::max(minTransferTime[t.at], double(t.bytes) / channelRate[channel]);
  push(TransferDone, now, now + duration, channel, transfer);
}

void ExecutionSimulator::startBatch(int32_t batch, double now) {
  ++batchesStarted;
  ++batchesRunning;
  for (int32_t op = 0; op < numOps; ++op) {
    pending[taskId(batch, PassKind::Forward, op)] =
        int32_t(graph.getDistinctInputs(op).size());
    if (options.training)
      pending[taskId(batch, PassKind::Backward, op)] =
          1 + int32_t(graph.getConsumers(op).size());
  }
  for (int32_t op : inputOps)
    enqueueTask(taskId(batch, PassKind::Forward, op), now);
}

void ExecutionSimulator::maybeStartBatch(double now) {
  if (batchesStarted >= options.batches ||
      batchesRunning >= options.batchesInFlight)
    return;
  for (int32_t op : inputOps) {
    int32_t device = placement[op];
    if (deviceBusy[device] || !deviceQueues[device].empty())
      return;
  }
  startBatch(batchesStarted, now);
}

void ExecutionSimulator::allocate(int32_t device, int64_t bytes) {
  int64_t &used = memory[device];
  used += bytes;
  if (used > result.peakMemory[device])
    result.peakMemory[device] = used;
}

void ExecutionSimulator::release(int32_t device, int64_t bytes) {
  memory[device] -= bytes;
}

void ExecutionSimulator::releaseActivation(int32_t batch, int32_t op,
                                           int32_t device) {
  int32_t &refs =
      activationRefs[(size_t(batch) * numOps + op) * numDevices + device];
  assert(refs > 0 && "activation released more often than held");
  if (--refs == 0)
    release(device, graph.getOp(op).outputBytes);
}

void ExecutionSimulator::readyBackward(int32_t batch, int32_t op, double now) {
  int32_t task = taskId(batch, PassKind::Backward, op);
  if (--pending[task] == 0)
    enqueueTask(task, now);
}

void ExecutionSimulator::taskFinished(int32_t task, double now) {
  int32_t batch = task / (numOps * passes);
  if (--tasksLeft[batch] == 0) {
    --batchesRunning;
    maybeStartBatch(now);
  }
}

void ExecutionSimulator::onOpDone(const Event &event) {
  int32_t task = event.payload, device = event.resource;
  int32_t op = task % numOps;
  int32_t batch = task / (numOps * passes);
  PassKind pass = PassKind((task / numOps) % passes);
  double now = event.time;
  const Op &o = graph.getOp(op);
  result.deviceBusy[device] += event.time - event.start;
  if (options.recordTrace)
    result.schedule.push_back({ScheduledItem::Operation, pass, batch, op,
                               device, -1, -1, 0, event.start, event.time});

  if (pass == PassKind::Forward) {
    // Algorithm 6: local consumers become ready, the output goes once to
    // every other device that runs a consumer.
    allocate(device, o.outputBytes);
    int32_t refs = options.training ? 1 : 0;
    int32_t stamp = ++stampCounter;
    for (int32_t consumer : graph.getConsumers(op)) {
      int32_t target = placement[consumer];
      if (target == device) {
        ++refs;
        int32_t consumerTask = taskId(batch, PassKind::Forward, consumer);
        if (--pending[consumerTask] == 0)
          enqueueTask(consumerTask, now);
        continue;
      }
      if (sentStamp[target] == stamp)
        continue;
      sentStamp[target] = stamp;
      if (!options.training)
        ++refs; // the source copy lives until it has left
      int32_t transfer = int32_t(transfers.size());
      transfers.push_back(
          {op, batch, target, device, 0, -1, o.outputBytes, PassKind::Forward});
      ++result.transfers;
      result.transferredBytes += o.outputBytes;
      enqueueTransfer(transfer, now);
    }
    activationRefs[(size_t(batch) * numOps + op) * numDevices + device] = refs;
    if (options.training) {
      readyBackward(batch, op, now);
    } else {
      for (int32_t input : graph.getDistinctInputs(op))
        releaseActivation(batch, input, device);
    }
  } else {
    // The gradient of every input: summed where the input's op runs.
    for (int32_t input : graph.getDistinctInputs(op)) {
      int32_t target = placement[input];
      int64_t bytes = graph.getOp(input).outputBytes;
      if (target == device) {
        uint8_t &held = gradientHeld[size_t(batch) * numOps + input];
        if (!held) {
          held = 1;
          allocate(device, bytes);
        }
        readyBackward(batch, input, now);
      } else {
        allocate(device, bytes); // until it has left
        int32_t transfer = int32_t(transfers.size());
        transfers.push_back(
            {op, batch, target, device, 0, input, bytes, PassKind::Backward});
        ++result.transfers;
        result.transferredBytes += bytes;
        enqueueTransfer(transfer, now);
      }
      releaseActivation(batch, input, device);
    }
    releaseActivation(batch, op, device);
    uint8_t &held = gradientHeld[size_t(batch) * numOps + op];
    if (held) {
      held = 0;
      release(device, o.outputBytes);
    }
  }
  taskFinished(task, now);

  if (!deviceQueues[device].empty()) {
    startTask(device, now);
  } else {
    deviceBusy[device] = 0;
    maybeStartBatch(now);
  }
}

void ExecutionSimulator::deliver(const PendingTransfer &t, double now) {
  if (t.pass == PassKind::Forward) {
    allocate(t.to, t.bytes);
    int32_t refs = 0;
    for (int32_t consumer : graph.getConsumers(t.op)) {
      if (placement[consumer] != t.to)
        continue;
      ++refs;
      int32_t consumerTask = taskId(t.batch, PassKind::Forward, consumer);
      if (--pending[consumerTask] == 0)
        enqueueTask(consumerTask, now);
    }
    activationRefs[(size_t(t.batch) * numOps + t.op) * numDevices + t.to] =
        refs;
    return;
  }
  uint8_t &held = gradientHeld[size_t(t.batch) * numOps + t.gradFor];
  if (!held) {
    held = 1;
    allocate(t.to, t.bytes);
  }
  readyBackward(t.batch, t.gradFor, now);
}

void ExecutionSimulator::onTransferDone(const Event &event) {
  int32_t channel = event.resource;
  double now = event.time;
  // Copy: enqueueing may grow `transfers`.
  PendingTransfer t = transfers[event.payload];
  int32_t next = network.getNextDevice(t.at, t.to);
  result.channelBusy[channel] += event.time - event.start;
  if (options.recordTrace)
    result.schedule.push_back({ScheduledItem::Transfer, t.pass, t.batch,
                               t.gradFor >= 0 ? t.gradFor : t.op, channel, t.at,
                               next, t.bytes, event.start, event.time});
  if (t.hop == 0) {
    // The tensor has left its source.
    if (t.pass == PassKind::Backward)
      release(t.at, t.bytes);
    else if (!options.training)
      releaseActivation(t.batch, t.op, t.at);
  }
  PendingTransfer &stored = transfers[event.payload];
  stored.at = next;
  ++stored.hop;
  if (next == t.to)
    deliver(stored, now);
  else
    enqueueTransfer(event.payload, now);

  if (!channelQueues[channel].empty())
    startTransfer(channel, now);
  else
    channelBusy[channel] = 0;
}

const SimulationResult &
ExecutionSimulator::run(llvm::ArrayRef<int32_t> newPlacement) {
  assert(newPlacement.size() == size_t(numOps) && "one device per op");
  placement = newPlacement;
  size_t devices = size_t(numDevices), channels = network.getNumChannels();
  size_t batches = size_t(options.batches);

  result.makespan = result.stepTime = 0;
  result.deviceBusy.assign(devices, 0);
  result.channelBusy.assign(channels, 0);
  result.peakMemory.assign(devices, 0);
  result.memoryOverflowBytes = result.transfers = result.transferredBytes = 0;
  result.events = 0;
  result.schedule.clear();
  result.overflowMsPerByte = options.conventions.overflowMsPerByte;

  heap.clear();
  sequence = 0;
  deviceQueues.resize(devices);
  for (Fifo &queue : deviceQueues)
    queue.clear();
  channelQueues.resize(channels);
  for (Fifo &queue : channelQueues)
    queue.clear();
  deviceBusy.assign(devices, 0);
  channelBusy.assign(channels, 0);
  transfers.clear();
  pending.assign(batches * size_t(passes) * size_t(numOps), 0);
  activationRefs.assign(batches * size_t(numOps) * devices, 0);
  gradientHeld.assign(batches * size_t(numOps), 0);
  memory.assign(devices, 0);
  tasksLeft.assign(batches, passes * numOps);
  sentStamp.assign(devices, 0);
  stampCounter = 0;
  batchesStarted = batchesRunning = 0;

  // Weights stay on their device for the whole step.
  for (int32_t op = 0; op < numOps; ++op)
    allocate(placement[op], graph.getOp(op).weightBytes);

  startBatch(0, 0.0);
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), Later());
    Event event = heap.back();
    heap.pop_back();
    ++result.events;
    result.makespan = event.time;
    switch (event.kind) {
    case WakeDevice:
      startTask(event.resource, event.time);
      break;
    case WakeChannel:
      startTransfer(event.resource, event.time);
      break;
    case OpDone:
      onOpDone(event);
      break;
    case TransferDone:
      onTransferDone(event);
      break;
    }
  }
  assert(batchesStarted == options.batches && batchesRunning == 0 &&
         "every batch ran to completion");

  result.stepTime = result.makespan / double(options.batches);
  for (size_t d = 0; d < devices; ++d) {
    double usable = network.getDevice(int32_t(d)).memoryBytes *
                    options.usableMemoryFraction;
    double over = double(result.peakMemory[d]) - usable;
    if (over > 0)
      result.memoryOverflowBytes += int64_t(over);
  }
  return result;
}
