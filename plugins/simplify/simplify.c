#include <tlc/pass.h>
