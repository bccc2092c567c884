#include <openssl/evp.h>
#include <openssl/bn.h>
#include <openssl/md5.h>
#include <openssl/crypto.h>
#include <openssl/pem.h>
#include <openssl/bio.h>
#include <openssl/core_names.h>
#include <openssl/rand.h>
