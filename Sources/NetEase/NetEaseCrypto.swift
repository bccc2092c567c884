import CCrypto

/// The hashing NetEase's request signing needs, from OpenSSL's libcrypto. The ciphers follow with the client.
public enum NetEaseCrypto {
    /// Lowercase hex MD5, used by eapi signatures and password login.
    public static func md5Hex(_ bytes: [UInt8]) -> String {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = bytes.withUnsafeBufferPointer { input in
            EVP_Digest(input.baseAddress, input.count, &digest, &length, EVP_md5(), nil)
        }
        precondition(ok == 1, "EVP_Digest(MD5) failed")
        return digest.prefix(Int(length)).map { byte in
            let hex = String(byte, radix: 16)
            return hex.count == 1 ? "0" + hex : hex
        }.joined()
    }
}
