/// How MPD 0.24 puts text into its messages.
public enum MessageText {
    /// libfmt's `{:?}` for a string, which MPD 0.24 uses for names in messages (`no such sticker: "x"`): double
    /// quotes, C escapes, `\xHH`/`\uHHHH`/`\UHHHHHHHH` for what is not printable (fmt follows Python's
    /// `str.isprintable`).
    public static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            default:
                if isPrintable(scalar) {
                    result.unicodeScalars.append(scalar)
                } else {
                    let hex = String(scalar.value, radix: 16)
                    let (prefix, width) = scalar.value < 0x100 ? ("x", 2) : scalar.value < 0x10000 ? ("u", 4) : ("U", 8)
                    result += "\\" + prefix + String(repeating: "0", count: max(0, width - hex.count)) + hex
                }
            }
        }
        return result + "\""
    }

    private static func isPrintable(_ scalar: Unicode.Scalar) -> Bool {
        if scalar == " " { return true }
        switch scalar.properties.generalCategory {
        case .control, .format, .surrogate, .privateUse, .unassigned, .lineSeparator, .paragraphSeparator,
            .spaceSeparator:
            return false
        default:
            return true
        }
    }

    /// MPD's `GetFullMessage` (`src/util/Exception.cxx`), which every error MPD 0.24 reports from an exception
    /// passes through: leading blanks dropped, every run of bytes up to 0x20 squeezed into one space, trailing blanks
    /// dropped, cut at a NUL. So a message is one tidy line (`Integer expected: ` for an empty argument ends at the
    /// colon).
    public static func sanitized(_ message: String) -> String {
        guard message.utf8.contains(where: { $0 < 0x20 }) || message.contains("  ") || message.hasPrefix(" ")
              || message.hasSuffix(" ") else { return message }
        var result: [UInt8] = []
        var pendingSpace = false
        var started = false
        for byte in message.utf8 {
            if byte == 0 { break }
            if byte <= 0x20 {
                pendingSpace = started
                continue
            }
            if pendingSpace { result.append(0x20) }
            pendingSpace = false
            started = true
            result.append(byte)
        }
        return String(decoding: result, as: UTF8.self)
    }
}
