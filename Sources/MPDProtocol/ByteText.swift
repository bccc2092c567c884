/// Text that keeps the bytes it was made from. MPD never validates UTF-8: a client that sends `save "\xff"` and
/// `save "\xfe"` gets two playlists, listed with their own bytes. Swift strings hold Unicode, so an argument's bytes
/// that are not UTF-8 are kept as code points of their own: byte `b` as U+10FF00 + `b`, at the end of the last
/// private use plane. The writer turns them back into the byte (`Response`, ACK lines), so what a client sent comes
/// back as it sent it, and two different byte strings never become one string.
///
/// So that the mapping goes both ways, a valid U+10FF00…U+10FFFF in the input (private use code points nobody
/// types) is kept as its four bytes, each escaped the same way.
public enum ByteText {
    static let base: UInt32 = 0x10FF00

    /// The bytes as a string: UTF-8 where they are valid, each other byte as U+10FF00 + byte.
    public static func decode(_ bytes: some Collection<UInt8>) -> String {
        // Almost every argument is valid UTF-8 without the escape range.
        if let text = String(validating: bytes, as: UTF8.self), !text.utf8.contains(0xF4) { return text }
        let bytes = Array(bytes)
        var scalars = String.UnicodeScalarView()
        var index = 0
        while index < bytes.count {
            let length = validSequenceLength(bytes, index)
            if length == 0 {
                scalars.append(Unicode.Scalar(base + UInt32(bytes[index]))!)
                index += 1
                continue
            }
            var value: UInt32
            switch length {
            case 1: value = UInt32(bytes[index])
            case 2: value = UInt32(bytes[index] & 0x1F)
            case 3: value = UInt32(bytes[index] & 0x0F)
            default: value = UInt32(bytes[index] & 0x07)
            }
            for offset in 1..<length { value = value << 6 | UInt32(bytes[index + offset] & 0x3F) }
            if value >= base {
                for offset in 0..<length { scalars.append(Unicode.Scalar(base + UInt32(bytes[index + offset]))!) }
            } else {
                scalars.append(Unicode.Scalar(value)!)
            }
            index += length
        }
        return String(scalars)
    }

    /// The length of the well-formed UTF-8 sequence at `index` (Unicode's table 3-7), or 0 when there is none.
    private static func validSequenceLength(_ bytes: [UInt8], _ index: Int) -> Int {
        let lead = bytes[index]
        func continuation(_ offset: Int, _ range: ClosedRange<UInt8> = 0x80...0xBF) -> Bool {
            index + offset < bytes.count && range.contains(bytes[index + offset])
        }
        switch lead {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF: return continuation(1) ? 2 : 0
        case 0xE0: return continuation(1, 0xA0...0xBF) && continuation(2) ? 3 : 0
        case 0xE1...0xEC, 0xEE...0xEF: return continuation(1) && continuation(2) ? 3 : 0
        case 0xED: return continuation(1, 0x80...0x9F) && continuation(2) ? 3 : 0
        case 0xF0: return continuation(1, 0x90...0xBF) && continuation(2) && continuation(3) ? 4 : 0
        case 0xF1...0xF3: return continuation(1) && continuation(2) && continuation(3) ? 4 : 0
        case 0xF4: return continuation(1, 0x80...0x8F) && continuation(2) && continuation(3) ? 4 : 0
        default: return 0
        }
    }

    /// The string's UTF-8 with every kept byte (U+10FF00 + b) written as the byte itself.
    public static func encode(_ utf8: some Collection<UInt8>) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(utf8.count)
        var iterator = utf8.makeIterator()
        var pending: [UInt8] = []
        while let byte = iterator.next() {
            guard byte == 0xF4 else {
                result.append(byte)
                continue
            }
            // U+10FF00…U+10FFFF is F4 8F BC…BF 80…BF.
            pending = [byte]
            while pending.count < 4, let next = iterator.next() { pending.append(next) }
            if pending.count == 4, pending[1] == 0x8F, pending[2] >= 0xBC {
                result.append((pending[2] & 0x03) << 6 | (pending[3] & 0x3F))
            } else {
                result += pending
            }
        }
        return result
    }

    /// Whether `encode` would change these bytes.
    @inlinable
    static func needsEncoding(_ byte: UInt8) -> Bool { byte == 0xF4 }
}

extension ByteText {
    /// MPD's `ValidateUTF8` (`src/util/UTF8.cxx`) on the bytes the client sent: a lead byte followed by as many
    /// continuation bytes as it announces (up to five: MPD's check is structural and lets overlong forms,
    /// surrogates and 5–6 byte sequences pass), no stray continuation byte, no 0xFE/0xFF. Since MPD 0.24.11 a
    /// stored playlist's name must pass it (`spl_valid_name` → `VerifyStringUTF8`).
    public static func isMPDValidUTF8(_ text: String) -> Bool {
        let bytes = text.utf8.contains(0xF4) ? encode(text.utf8) : Array(text.utf8)
        var index = 0
        while index < bytes.count {
            let lead = bytes[index]
            index += 1
            let continuations: Int
            switch lead {
            case 0x00...0x7F: continue
            case 0xC0...0xDF: continuations = 1
            case 0xE0...0xEF: continuations = 2
            case 0xF0...0xF7: continuations = 3
            case 0xF8...0xFB: continuations = 4
            case 0xFC...0xFD: continuations = 5
            default: return false
            }
            for _ in 0..<continuations {
                guard index < bytes.count, bytes[index] & 0xC0 == 0x80 else { return false }
                index += 1
            }
        }
        return true
    }

    /// `spl_valid_name` of MPD 0.24.13 (`src/PlaylistFile.cxx`): not empty, no `/`, no newline, valid UTF-8 by
    /// MPD's check. A carriage return is allowed again since 0.24.11.
    public static func isValidPlaylistName(_ name: String) -> Bool {
        !name.isEmpty && !name.utf8.contains { $0 == UInt8(ascii: "/") || $0 == 0x0A } && isMPDValidUTF8(name)
    }
}
