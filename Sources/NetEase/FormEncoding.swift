/// `application/x-www-form-urlencoded` bodies for NetEase. Only RFC 3986's unreserved characters pass as they
/// are: base64's `+`, `/` and `=` must be percent-encoded, because the server reads a literal `+` as a space and
/// the decryption then fails (`URLComponents` leaves `+` alone, which is why this exists).
public enum FormEncoding {
    public static func encode(_ fields: [(String, String)]) -> String {
        fields.map { "\(percentEncode($0.0))=\(percentEncode($0.1))" }.joined(separator: "&")
    }

    public static func percentEncode(_ text: String) -> String {
        encode(text) { isUnreserved($0) }
    }

    /// JavaScript's `encodeURIComponent`, which NetEase's clients apply to eapi cookie names and values: it also
    /// leaves `!*'()` alone.
    public static func uriComponent(_ text: String) -> String {
        encode(text) { isUnreserved($0) || "!*'()".utf8.contains($0) }
    }

    /// Decodes a form body (`+` as space): the test servers' side.
    public static func decode(_ body: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in body.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = percentDecode(String(parts[0]))
            fields[name] = parts.count > 1 ? percentDecode(String(parts[1])) : ""
        }
        return fields
    }

    public static func percentDecode(_ text: String) -> String {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "+") {
                bytes.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"), let high = iterator.next(), let low = iterator.next(),
                      let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16) {
                bytes.append(value)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
             UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    private static func encode(_ text: String, keeping keep: (UInt8) -> Bool) -> String {
        var output: [UInt8] = []
        for byte in text.utf8 {
            if keep(byte) {
                output.append(byte)
            } else {
                output += [UInt8(ascii: "%"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0xF)]]
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
