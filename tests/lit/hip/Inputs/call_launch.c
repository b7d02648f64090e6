/* Launches the kernel of the library tlc --emit=so built for a HIP target
 * from elementwise_add.tl.  There is no GPU here: the launcher must return
 * an error code (not crash), and the error-string function must name it. */
#include <stdio.h>

#include "libadd.h"

int main(void)
{
	int err = elementwise_add(NULL, NULL, NULL, NULL);
	printf("failed: %d\n", err != 0);
	printf("%s\n", elementwise_add_error_string(err));
	printf("0: %s\n", elementwise_add_error_string(0));
	return 0;
}
