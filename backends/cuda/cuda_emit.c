#include <tlc/target.h>
