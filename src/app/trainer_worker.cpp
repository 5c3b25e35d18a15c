// trainer_worker.cpp: see trainer_worker.h.
#include "app/trainer_worker.h"

#include <memory>

#include "experiments/trainer.h"

platform::TrainerWorkerFns lab_trainer_worker() {
  auto worker = std::make_shared<attn::TrainerWorker>();
  platform::TrainerWorkerFns fns;
  fns.receive = [worker](std::string_view m) { worker->receive(m); };
  fns.tick = [worker](double now) { return worker->tick(now); };
  fns.take_outbox = [worker] { return worker->take_outbox(); };
  return fns;
}
