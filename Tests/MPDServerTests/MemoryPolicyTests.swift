import Foundation
import MPDProtocol
@testable import NoSignalApp
import Testing

/// `MemoryPolicy.dropExecutableCode`, on this test process: the executable's code leaves the page tables and comes
/// back from the file as it runs.
@Suite struct MemoryPolicyTests {
    /// Resident kB of the executable's read-only executable mappings (`/proc/self/smaps`).
    static func residentCode() throws -> Int {
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let smaps = try String(contentsOfFile: "/proc/self/smaps", encoding: .utf8)
        var inCode = false
        var total = 0
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if fields.count >= 6, fields[0].contains("-"), fields[1].count == 4 {
                inCode = fields[1] == "r-xp" && fields[5...].joined(separator: " ") == executable
            } else if inCode, fields.first == "Rss:", fields.count >= 2, let kB = Int(fields[1]) {
                total += kB
            }
        }
        return total
    }

    @Test func theExecutablesCodeLeavesThePageTablesAndComesBackInUse() throws {
        let before = try Self.residentCode()
        #expect(before > 0)
        MemoryPolicy.dropExecutableCode()
        let after = try Self.residentCode()
        // What runs between the drop and the count (this test, the reading of smaps) comes back, little else.
        #expect(after < before / 2, "resident code \(before) kB before, \(after) kB after")
        // Code not run since comes back from the file when called.
        var response = Response()
        response.add("volume", 100)
        response.addTime("Last-Modified", unix: 1_577_934_245)
        #expect(response.text == "volume: 100\nLast-Modified: 2020-01-02T03:04:05Z\n")
    }
}
