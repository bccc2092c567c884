import Foundation
import NetEase
import Testing

/// The login QR code: the same modules as Debian's `qrencode` command, drawn with half blocks.
@Suite struct QRCodeTests {
    static let loginURL = "https://music.163.com/login?codekey=5fa0b4a2-3c1e-4a9e-9b1d-2f7e3a6c8d90&chainId=v1_x"

    /// `qrencode -t ASCII -m 0 -l M -8` prints `##` per dark module and two blanks per light one.
    func reference(_ text: String) throws -> [[Bool]] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/qrencode")
        process.arguments = ["-t", "ASCII", "-m", "0", "-l", "M", "-8", "-o", "-", text]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map { line in
            stride(from: 0, to: line.count, by: 2).map { line[line.index(line.startIndex, offsetBy: $0)] == "#" }
        }
    }

    @Test func modulesMatchTheQrencodeCommand() throws {
        let code = try QRCode(encoding: Self.loginURL)
        let expected = try reference(Self.loginURL)
        #expect(expected.count == code.size)
        let rows = (0..<code.size).map { row in (0..<code.size).map { code.isDark(row: row, column: $0) } }
        #expect(rows == expected)
    }

    @Test func terminalTextUsesTwoModulesPerCell() throws {
        let code = try QRCode(encoding: "hello")
        let text = code.terminalText(margin: 2)
        let lines = text.split(separator: "\n")
        #expect(lines.count == (code.size + 4 + 1) / 2)
        #expect(lines.allSatisfy { $0.count == code.size + 4 })
        // The quiet zone is light: the first line is all blocks; the finder pattern's dark corner shows as blanks.
        #expect(lines[0].allSatisfy { $0 == "█" })
        #expect(lines[1].dropFirst(2).first == "▄" || lines[1].dropFirst(2).first == " ")
        #expect(code.terminalText(invert: true) != text)
    }
}
