// web_hook.h: the page's window.attnlab test hook (web/lab.js calls the exported
// functions in web_hook.cpp). Natively these are no-ops.
#pragma once

#include <string>

#include "app/lab_app.h"

void web_hook_install(LabApp& app);
void web_hook_after_frame(const LabApp& app);
void web_hook_fatal(const std::string& message);
