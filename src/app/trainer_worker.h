// trainer_worker.h: what the training worker does with its messages
// (attn::TrainerWorker), as the functions the platform's transport calls: on
// the native training thread, and in the page's worker module.
#pragma once

#include "platform/platform.h"

platform::TrainerWorkerFns lab_trainer_worker();
