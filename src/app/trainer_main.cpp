// trainer_main.cpp: the training worker's own WebAssembly module (web only):
// the headless layers and the worker's side of the protocol, loaded by
// web/trainer-worker.js in a plain Web Worker. No ImGui, SDL or GL.
#include "app/trainer_worker.h"
#include "platform/platform.h"

int main() {
  platform::serve_trainer(lab_trainer_worker());
  return 0;
}
