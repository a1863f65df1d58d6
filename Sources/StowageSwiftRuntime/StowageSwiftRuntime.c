// The module is its header; a C target needs one source file to be built.
#include "StowageSwiftRuntime.h"
