import CQREncode

/// A QR code for `nosignal login`: NetEase's login page URL with the code key, to be scanned with the NetEase
/// app. Encoded by libqrencode; drawn in the terminal with half blocks, two modules per character cell, so a
/// 1.x-version code fits an 80×24 terminal.
public struct QRCode: Sendable, Equatable {
    /// Modules per side.
    public let size: Int
    /// Row-major; true is a dark module.
    public let modules: [Bool]

    public struct EncodingError: Error, CustomStringConvertible {
        public var description: String { "the text is too long for a QR code" }
    }

    /// Error correction level M, 8-bit mode, the smallest version that fits (as `qrencode -l M -8`).
    public init(encoding text: String) throws {
        guard let code = QRcode_encodeString8bit(text, 0, QR_ECLEVEL_M) else { throw EncodingError() }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        size = width
        modules = (0..<(width * width)).map { code.pointee.data[$0] & 1 == 1 }
    }

    public func isDark(row: Int, column: Int) -> Bool {
        guard row >= 0, column >= 0, row < size, column < size else { return false }
        return modules[row * size + column]
    }

    /// Text for a terminal with a quiet zone of `margin` modules. Light modules are drawn as blocks and dark ones
    /// as blanks, which scans on the usual dark terminal background; `invert` draws dark modules instead, for
    /// light backgrounds.
    public func terminalText(margin: Int = 2, invert: Bool = false) -> String {
        let range = -margin..<(size + margin)
        var lines: [String] = []
        for row in stride(from: range.lowerBound, to: range.upperBound, by: 2) {
            var line = ""
            for column in range {
                let top = isDark(row: row, column: column) != invert
                let bottom = row + 1 < range.upperBound ? isDark(row: row + 1, column: column) != invert : !invert
                switch (top, bottom) {
                case (false, false): line += "█"
                case (false, true): line += "▀"
                case (true, false): line += "▄"
                case (true, true): line += " "
                }
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
