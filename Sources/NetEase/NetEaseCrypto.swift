import CCrypto
import Foundation

/// NetEase's request encryption: weapi (two AES-CBC passes and textbook RSA of the reversed key),
/// eapi (AES-ECB of `path-36cd479b6b5-json-36cd479b6b5-md5`), linuxapi, the anonymous-register user name, and
/// the inverse operations the fake server in the tests needs. Everything comes from OpenSSL's libcrypto.
public enum NetEaseCrypto {
    static let iv = Array("0102030405060708".utf8)
    static let presetKey = Array("0CoJUm6Qyw8W8jud".utf8)
    static let eapiKey = Array("e82ckenh8dichen8".utf8)
    static let linuxapiKey = Array("rFgB&h#%2?^eDg:Q".utf8)
    static let eapiSeparator = "-36cd479b6b5-"
    static let base62 = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".utf8)
    static let idXorKey = Array("3go8&$8*3*3h0k(2)2".utf8)

    public struct CryptoError: Error, Equatable, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }

    // MARK: weapi

    /// The two form fields of a weapi request. `secretKey` is 16 characters (random from base62 when nil).
    public static func weapi(_ text: String, secretKey: String? = nil, publicKey: RSAPublicKey = .netease)
        -> (params: String, encSecKey: String)
    {
        let key = secretKey.map { Array($0.utf8) } ?? randomSecretKey()
        let first = base64(aesCBCEncrypt(key: presetKey, Array(text.utf8)))
        let params = base64(aesCBCEncrypt(key: key, Array(first.utf8)))
        let encSecKey = publicKey.rawEncryptHex(Array(key.reversed()))
        return (params, encSecKey)
    }

    /// The fake server's side: the JSON text of a weapi request, given the private key of the public key used.
    public static func weapiDecrypt(params: String, encSecKey: String, privateKey: RSAPrivateKey) throws -> String {
        let reversed = try privateKey.rawDecrypt(hex: encSecKey)
        let key = Array(reversed.suffix(16).reversed())
        guard let outer = Data(base64Encoded: params) else { throw CryptoError("params is not base64") }
        let first = try aesCBCDecrypt(key: key, Array(outer))
        guard let inner = Data(base64Encoded: Data(first)) else { throw CryptoError("inner text is not base64") }
        let text = try aesCBCDecrypt(key: presetKey, Array(inner))
        guard let string = String(bytes: text, encoding: .utf8) else { throw CryptoError("not UTF-8") }
        return string
    }

    static func randomSecretKey() -> [UInt8] {
        var random = [UInt8](repeating: 0, count: 16)
        _ = RAND_bytes(&random, 16)
        return random.map { base62[Int($0) % base62.count] }
    }

    // MARK: eapi

    /// `params` of an eapi request: `path` is the `/api/…` path the digest covers.
    public static func eapi(path: String, text: String) -> String {
        let digest = md5Hex(Array("nobody\(path)use\(text)md5forencrypt".utf8))
        let data = path + eapiSeparator + text + eapiSeparator + digest
        return hexUpper(aesECBEncrypt(key: eapiKey, Array(data.utf8)))
    }

    /// The fake server's side: path, JSON text and digest of an eapi request; throws on a wrong digest.
    public static func eapiDecrypt(params: String) throws -> (path: String, text: String) {
        guard let bytes = fromHex(params) else { throw CryptoError("params is not hex") }
        let plain = try aesECBDecrypt(key: eapiKey, bytes)
        guard let string = String(bytes: plain, encoding: .utf8) else { throw CryptoError("not UTF-8") }
        let parts = string.components(separatedBy: eapiSeparator)
        guard parts.count == 3 else { throw CryptoError("not path-text-digest") }
        guard md5Hex(Array("nobody\(parts[0])use\(parts[1])md5forencrypt".utf8)) == parts[2] else {
            throw CryptoError("wrong digest")
        }
        return (parts[0], parts[1])
    }

    /// An encrypted eapi response body (`e_r: true`).
    public static func eapiDecryptResponse(_ bytes: [UInt8]) throws -> [UInt8] {
        try aesECBDecrypt(key: eapiKey, bytes)
    }

    public static func eapiEncryptResponse(_ bytes: [UInt8]) -> [UInt8] {
        aesECBEncrypt(key: eapiKey, bytes)
    }

    // MARK: linuxapi, anonymous

    public static func linuxapi(_ text: String) -> String {
        hexUpper(aesECBEncrypt(key: linuxapiKey, Array(text.utf8)))
    }

    /// The `username` of `/api/register/anonimous` for a device id.
    public static func anonymousUsername(deviceID: String) -> String {
        let id = Array(deviceID.utf8)
        let xored = id.enumerated().map { $0.element ^ idXorKey[$0.offset % idXorKey.count] }
        let encodedID = base64(md5(xored))
        return base64(Array("\(deviceID) \(encodedID)".utf8))
    }

    // MARK: Primitives

    /// Lowercase hex MD5, used by eapi signatures and password login.
    public static func md5Hex(_ bytes: [UInt8]) -> String {
        md5(bytes).map { String(format: "%02x", $0) }.joined()
    }

    static func md5(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = bytes.withUnsafeBufferPointer { input in
            EVP_Digest(input.baseAddress, input.count, &digest, &length, EVP_md5(), nil)
        }
        precondition(ok == 1, "EVP_Digest(MD5) failed")
        return Array(digest.prefix(Int(length)))
    }

    static func base64(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }

    static func hexUpper(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02X", $0) }.joined() }

    static func fromHex(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for i in stride(from: 0, to: digits.count, by: 2) {
            guard let high = hexValue(digits[i]), let low = hexValue(digits[i + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: c - 0x30
        case 0x41...0x46: c - 0x41 + 10
        case 0x61...0x66: c - 0x61 + 10
        default: nil
        }
    }

    static func aesCBCEncrypt(key: [UInt8], _ data: [UInt8]) -> [UInt8] {
        (try? cipher(EVP_aes_128_cbc(), encrypt: true, key: key, iv: iv, data)) ?? []
    }

    static func aesCBCDecrypt(key: [UInt8], _ data: [UInt8]) throws -> [UInt8] {
        try cipher(EVP_aes_128_cbc(), encrypt: false, key: key, iv: iv, data)
    }

    static func aesECBEncrypt(key: [UInt8], _ data: [UInt8]) -> [UInt8] {
        (try? cipher(EVP_aes_128_ecb(), encrypt: true, key: key, iv: nil, data)) ?? []
    }

    static func aesECBDecrypt(key: [UInt8], _ data: [UInt8]) throws -> [UInt8] {
        try cipher(EVP_aes_128_ecb(), encrypt: false, key: key, iv: nil, data)
    }

    /// AES-128 with PKCS#7 padding through OpenSSL's EVP interface.
    private static func cipher(_ type: OpaquePointer?, encrypt: Bool, key: [UInt8], iv: [UInt8]?, _ data: [UInt8])
        throws -> [UInt8]
    {
        guard let context = EVP_CIPHER_CTX_new() else { throw CryptoError("out of memory") }
        defer { EVP_CIPHER_CTX_free(context) }
        guard EVP_CipherInit_ex(context, type, nil, key, iv, encrypt ? 1 : 0) == 1 else {
            throw CryptoError("cipher init failed")
        }
        var output = [UInt8](repeating: 0, count: data.count + 32)
        var written: Int32 = 0
        var total = 0
        guard EVP_CipherUpdate(context, &output, &written, data, Int32(data.count)) == 1 else {
            throw CryptoError("cipher failed")
        }
        total = Int(written)
        let finished = output.withUnsafeMutableBufferPointer { buffer in
            EVP_CipherFinal_ex(context, buffer.baseAddress! + total, &written)
        }
        guard finished == 1 else { throw CryptoError("bad padding") }
        total += Int(written)
        return Array(output.prefix(total))
    }
}

/// An RSA public key for weapi's textbook RSA: NetEase's, or one from a PEM file (`weapi_public_key`, for a
/// fake server whose private key the tests hold).
public struct RSAPublicKey: Sendable, Equatable {
    public var modulus: [UInt8]
    public var exponent: [UInt8]

    public init(modulus: [UInt8], exponent: [UInt8]) {
        self.modulus = modulus
        self.exponent = exponent
    }

    /// NetEase's key.
    public static let netease = RSAPublicKey(
        modulus: NetEaseCrypto.fromHex(
            "00e0b509f6259df8642dbc35662901477df22677ec152b5ff68ace615bb7b725152b3ab17a876aea8a5aa76d2e417629ec4ee341f56135fccf695280104e0312ecbda92557c93870114af6c9d05c4f7f0c3685b7a46bee255932575cce10b424d813cfe4875d3e82047b97ddef52741d546b8e289dc6935b3ece0462db0a22b8e7")!,
        exponent: [0x01, 0x00, 0x01])

    /// Reads `-----BEGIN PUBLIC KEY-----` (or `RSA PUBLIC KEY`) text.
    public init(pem: String) throws {
        let (n, e) = try RSAKeyFile.read(pem: pem, private: false)
        self.init(modulus: n, exponent: e)
    }

    /// `c = m^e mod n` as lower-case hex, left-padded to the modulus size (256 digits for 1024 bits).
    func rawEncryptHex(_ message: [UInt8]) -> String {
        let result = RSAKeyFile.modPow(message, exponent, modulus)
        let digits = result.map { String(format: "%02x", $0) }.joined()
        let width = (modulus.drop { $0 == 0 }.count) * 2
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}

/// The fake server's private key (tests only).
public struct RSAPrivateKey: Sendable {
    var modulus: [UInt8]
    var privateExponent: [UInt8]

    public init(pem: String) throws {
        let (n, d) = try RSAKeyFile.read(pem: pem, private: true)
        modulus = n
        privateExponent = d
    }

    func rawDecrypt(hex: String) throws -> [UInt8] {
        guard let cipher = NetEaseCrypto.fromHex(hex) else { throw NetEaseCrypto.CryptoError("encSecKey is not hex") }
        return RSAKeyFile.modPow(cipher, privateExponent, modulus)
    }
}

enum RSAKeyFile {
    /// n and e (public) or n and d (private) of a PEM RSA key.
    static func read(pem: String, private isPrivate: Bool) throws -> ([UInt8], [UInt8]) {
        let bytes = Array(pem.utf8)
        guard let bio = BIO_new_mem_buf(bytes, Int32(bytes.count)) else { throw NetEaseCrypto.CryptoError("out of memory") }
        defer { BIO_free(bio) }
        let key = isPrivate ? PEM_read_bio_PrivateKey(bio, nil, nil, nil) : PEM_read_bio_PUBKEY(bio, nil, nil, nil)
        guard let key else { throw NetEaseCrypto.CryptoError("not a PEM RSA \(isPrivate ? "private" : "public") key") }
        defer { EVP_PKEY_free(key) }
        func parameter(_ name: String) throws -> [UInt8] {
            var number: OpaquePointer?
            guard EVP_PKEY_get_bn_param(key, name, &number) == 1, let number else {
                throw NetEaseCrypto.CryptoError("the key has no \(name)")
            }
            defer { BN_free(number) }
            var out = [UInt8](repeating: 0, count: Int((BN_num_bits(number) + 7) / 8))
            BN_bn2bin(number, &out)
            return out
        }
        return (try parameter("n"), try parameter(isPrivate ? "d" : "e"))
    }

    /// `base^exponent mod modulus` on big-endian byte strings.
    static func modPow(_ base: [UInt8], _ exponent: [UInt8], _ modulus: [UInt8]) -> [UInt8] {
        let b = BN_bin2bn(base, Int32(base.count), nil)
        let e = BN_bin2bn(exponent, Int32(exponent.count), nil)
        let m = BN_bin2bn(modulus, Int32(modulus.count), nil)
        let r = BN_new()
        let context = BN_CTX_new()
        defer {
            BN_free(b)
            BN_free(e)
            BN_free(m)
            BN_free(r)
            BN_CTX_free(context)
        }
        BN_mod_exp(r, b, e, m, context)
        var out = [UInt8](repeating: 0, count: Int((BN_num_bits(r) + 7) / 8))
        BN_bn2bin(r, &out)
        return out
    }
}
