/* Links against the library tlc --emit=so built from elementwise_add.tl and
 * asks it for error strings (no GPU needed). */
#include <stdio.h>

#include "libadd.h"

int main(void)
{
	int (*launch)(uint16_t *, uint16_t *, uint16_t *, void *) = elementwise_add;
	if (!launch)
		return 1;
	printf("%s\n", elementwise_add_error_string(0));
	printf("2: %s\n", elementwise_add_error_string(2));
	return 0;
}
