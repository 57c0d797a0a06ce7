#pragma once
// A fixture: the trainer reaching the simulator through a second header.
#include "core/util/b.h"
