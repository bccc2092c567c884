#include <openssl/evp.h>
#include <openssl/bn.h>
#include <openssl/md5.h>
#include <openssl/crypto.h>
