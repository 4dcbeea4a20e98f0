// A backend reaching into the core: what check_layers.py must refuse.
#include "../core/runtime.h"
