#pragma once
#include "core/sim/simulator.h"
