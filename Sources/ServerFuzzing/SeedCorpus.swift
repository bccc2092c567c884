import Foundation
import MPDTesting

/// The fuzzer's starting inputs: what the differential scripts send, one input per connection of a script (its
/// steps' bytes in order, commands and raw bytes alike), cut into pieces of at most `linesPerSeed` steps so that
/// each stays small enough to mutate. The scripts are the project's record of every protocol path that matters.
public enum SeedCorpus {
    public static let linesPerSeed = 24

    public static func seeds(fromScriptsIn directory: String) -> [(name: String, bytes: [UInt8])] {
        var seeds: [(String, [UInt8])] = []
        for script in DifferentialScript.loadAll(directory: directory) where script.loadError == nil {
            var byConnection: [Int: [[UInt8]]] = [:]
            for step in script.steps {
                guard case .send(let bytes, _) = step.action else { continue }
                byConnection[step.connection, default: []].append(bytes)
            }
            for (connection, pieces) in byConnection.sorted(by: { $0.key < $1.key }) {
                for (part, start) in stride(from: 0, to: pieces.count, by: linesPerSeed).enumerated() {
                    let bytes = pieces[start..<min(pieces.count, start + linesPerSeed)].flatMap { $0 }
                    seeds.append(("\(script.name)-\(connection)-\(part)", bytes))
                }
            }
        }
        return seeds
    }

    /// Writes the seeds as files into `directory` (created if missing); returns how many.
    @discardableResult
    public static func write(fromScriptsIn scripts: String, to directory: String) throws -> Int {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let seeds = seeds(fromScriptsIn: scripts)
        for seed in seeds {
            try Data(seed.bytes).write(to: URL(fileURLWithPath: directory + "/" + seed.name))
        }
        return seeds.count
    }
}
