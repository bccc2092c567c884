#include <id3tag.h>
