import Foundation
import ServerFuzzing

// The whole-server protocol fuzzer. Built by `Fuzz/run.sh` with `-DFUZZING` and `--sanitize=fuzzer,address`,
// libFuzzer drives `LLVMFuzzerTestOneInput`; a normal build is the replay tool for what it finds:
//
//   nosignal-fuzz run FILE|DIR…      runs each input through a fresh server, reports crashes and hangs
//   nosignal-fuzz seeds SCRIPTS DIR  writes the seed corpus (the differential scripts' requests) into DIR

/// Runs async work to completion from a synchronous caller that is not a concurrency thread (libFuzzer's).
func blocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var result: Result<T, any Error>?
    Task {
        do { result = .success(try await body()) } catch { result = .failure(error) }
        done.signal()
    }
    done.wait()
    return try result!.get()
}

/// Odd-length inputs come from a unix-socket (local) client, so the local-only commands (`config`, `file://`)
/// are reached too; the choice is a function of the input, as libFuzzer needs.
func isLocal(_ input: [UInt8]) -> Bool { input.count % 2 == 1 }

#if FUZZING
nonisolated(unsafe) private var fuzzer: WholeServerFuzzer?

@_cdecl("LLVMFuzzerInitialize")
public func fuzzerInitialize(_ argc: UnsafeMutablePointer<Int32>,
                             _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> Int32 {
    let environment = ProcessInfo.processInfo.environment
    if let scripts = environment["NOSIGNAL_FUZZ_SCRIPTS"], let seeds = environment["NOSIGNAL_FUZZ_SEEDS"] {
        _ = try? SeedCorpus.write(fromScriptsIn: scripts, to: seeds)
    }
    do {
        fuzzer = try blocking { try await WholeServerFuzzer.make() }
    } catch {
        fatalError("cannot start the server: \(error)")
    }
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    guard let fuzzer else { return 0 }
    do {
        try blocking { try await fuzzer.run(input, isLocal: isLocal(input)) }
    } catch {
        fatalError("\(error)")
    }
    return 0
}
#else
@main
enum ServerFuzzReplay {
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        switch arguments.first {
        case "seeds" where arguments.count == 3:
            do {
                let count = try SeedCorpus.write(fromScriptsIn: arguments[1], to: arguments[2])
                print("wrote \(count) seeds to \(arguments[2])")
            } catch {
                print("nosignal-fuzz: \(error)")
                exit(1)
            }
        case "run" where arguments.count >= 2:
            exit(await replay(arguments.dropFirst().flatMap(files)))
        default:
            print("usage: nosignal-fuzz run FILE|DIR… | nosignal-fuzz seeds SCRIPTS-DIR OUT-DIR")
            exit(2)
        }
    }

    static func files(_ path: String) -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            return [path]
        }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.sorted().map { path + "/" + $0 }
    }

    /// Runs every input through one server, as the fuzzer does; a crash ends the process, a hang is reported.
    static func replay(_ paths: [String]) async -> Int32 {
        let fuzzer: WholeServerFuzzer
        do { fuzzer = try await WholeServerFuzzer.make() } catch {
            print("nosignal-fuzz: cannot start the server: \(error)")
            return 1
        }
        var failures = 0
        let environment = ProcessInfo.processInfo.environment
        let slow = environment["NOSIGNAL_FUZZ_SLOW"].flatMap(Int.init).map { Duration.milliseconds($0) }
        let started = ContinuousClock.now
        for path in paths {
            guard let data = FileManager.default.contents(atPath: path) else { continue }
            let input = [UInt8](data)
            do {
                let start = ContinuousClock.now
                let answer = try await fuzzer.run(input, isLocal: isLocal(input))
                let took = ContinuousClock.now - start
                if environment["NOSIGNAL_FUZZ_ECHO"] != nil {
                    print("== \(path)\n" + String(decoding: answer, as: UTF8.self))
                }
                if let slow, took > slow { print("slow \(took) \(path)") }
            } catch {
                print("FAIL \(path): \(error)")
                failures += 1
            }
        }
        await fuzzer.stop()
        print("\(paths.count) inputs, \(failures) failed, \(ContinuousClock.now - started)")
        return failures == 0 ? 0 : 1
    }
}
#endif
