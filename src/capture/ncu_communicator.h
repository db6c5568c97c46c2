// Replaying communication kernels across ranks. A communication kernel (NCCL, NVSHMEM, custom
// all-reduce) replayed on one rank waits for peers that do not replay it. When the user asks
// for them (selection.communication=on) in a job under one kscope (kscope profile -- torchrun
// ...), the selection asks for ncu's application replay, which reruns the whole job per pass.
// An ncu that has the multi-process communicator (its --help lists
// --communicator-shmem-num-peers) can instead keep every rank of the process tree in step
// during kernel replay (--communicator shmem): this picks that when the installed ncu has it.
#pragma once

#include <string>
#include <string_view>

#include "capture/selection.h"
#include "tools/process.h"

namespace kscope::capture {

// Whether `ncu --help` text offers the shared-memory communicator.
bool HelpHasShmemCommunicator(std::string_view help);

// For a selection of several ranks whose communication kernels need application replay: asks
// the installed ncu (`ncu --help`, output in `logs_dir`) and, when it has the communicator,
// switches the selection to kernel replay with `--communicator shmem` over its ranks, with a
// note either way. Anything else is left as it is.
void ChooseCommunicationReplay(ProcessRunner& runner, const std::string& ncu, const std::string& logs_dir,
                               Selection& sel);

}  // namespace kscope::capture
