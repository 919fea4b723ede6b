#include "config.h"
#include "testing.h"
int main(void) { return (testing_done()); }
