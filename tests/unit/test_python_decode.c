/* placeholder until the decoder tests land */
#include "testing.h"
int main(void) { CHECK(1, "placeholder"); return testing_done(); }
