#include "tap.h"
int main(void) { return 0; }
