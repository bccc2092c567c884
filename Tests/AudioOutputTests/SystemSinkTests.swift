import AudioOutputs
import Foundation
import Glibc
import PlayerCore
import Synchronization
import Testing

/// Bytes collected by a reader thread.
final class Collector: Sendable {
    let bytes = Mutex<[UInt8]>([])
    let finished = Mutex(false)

    var count: Int { bytes.withLock { $0.count } }

    /// Polls until at least `count` bytes arrived; false after `timeout` seconds.
    func wait(for count: Int, timeout: Double = 20) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while self.count < count {
            if Date() > deadline { return false }
            usleep(1000)
        }
        return true
    }
}

func write(_ sink: some AudioSink, _ bytes: some Collection<UInt8>) throws {
    try Array(bytes).withUnsafeBytes { try sink.write($0) }
}

@Suite struct NullSinkTests {
    @Test func takesEverythingAndLeavesPacingToTheEngine() throws {
        let sink = NullSink()
        let format = AudioFormat(sampleRate: 96000, sampleFormat: .float, channels: 6)
        #expect(try sink.open(format) == format)
        try write(sink, testPCM(format, frames: 1000))
        sink.pause()
        sink.cancel()
        sink.drain()
        #expect(sink.bytesWritten == 1000 * format.bytesPerFrame)
        #expect(!sink.keepsTime)
        sink.close()
        #expect(!sink.isOpen)
    }
}

@Suite struct FifoSinkTests {
    static func isFIFO(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO
    }

    @Test func aReaderGetsExactlyTheWrittenBytes() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let path = dir.path("mpd.fifo")
        let sink = FifoSink(path: path)
        #expect(try sink.open(.cd) == .cd)
        #expect(Self.isFIFO(path))
        #expect(!sink.keepsTime)

        let reader = open(path, O_RDONLY)
        try #require(reader >= 0)
        let collector = Collector()
        let thread = Thread {
            var buffer = [UInt8](repeating: 0, count: 8192)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(reader, $0.baseAddress, $0.count) }
                if count <= 0 { break }
                collector.bytes.withLock { $0 += buffer[..<count] }
            }
            collector.finished.withLock { $0 = true }
        }
        thread.start()

        let pcm = testPCM(.cd, frames: 100_000)
        var sent = 0
        // The pipe holds 64 KiB; the engine's pacing keeps the reader ahead, which waiting for it stands in for.
        for chunk in frameChunks(pcm, frameSize: 4, sizesInFrames: [1024, 4000, 7, 3000]) {
            try write(sink, chunk)
            sent += chunk.count
            #expect(collector.wait(for: sent))
        }
        sink.close()
        FifoSink.shutdown(path: path)
        #expect(collector.wait(for: pcm.count))
        // Our own read end is gone too: the reader sees the end of the stream.
        let deadline = Date().addingTimeInterval(5)
        while !collector.finished.withLock({ $0 }), Date() < deadline { usleep(1000) }
        #expect(collector.finished.withLock { $0 })
        close(reader)
        #expect(firstDifference(collector.bytes.withLock { $0 }, pcm) == nil)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func noReaderNeverBlocksAndCancelEmptiesThePipe() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let path = dir.path("mpd.fifo")
        let sink = FifoSink(path: path)
        _ = try sink.open(.cd)
        let started = Date()
        for seed in 0..<20 { try write(sink, testPCM(.cd, frames: 44100, seed: UInt32(seed))) }
        #expect(Date().timeIntervalSince(started) < 5)
        sink.cancel()
        // After a cancel a new reader sees only what comes next.
        let reader = open(path, O_RDONLY | O_NONBLOCK)
        try #require(reader >= 0)
        defer { close(reader) }
        let next = testPCM(.cd, frames: 100, seed: 99)
        try write(sink, next)
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count = buffer.withUnsafeMutableBytes { read(reader, $0.baseAddress, $0.count) }
        #expect(Array(buffer.prefix(max(count, 0))) == next)
        FifoSink.shutdown(path: path)
    }

    @Test func theFifoOutlivesStopAndNewSinksAndAForeignFifoStays() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let path = dir.path("existing.fifo")
        #expect(mkfifo(path, 0o600) == 0)
        let first = FifoSink(path: path)
        _ = try first.open(.cd)
        let reader = open(path, O_RDONLY | O_NONBLOCK)
        try #require(reader >= 0)
        defer { close(reader) }
        let before = testPCM(.cd, frames: 100, seed: 1)
        try write(first, before)
        first.close()
        // The engine makes a new sink for each open: the reader keeps reading the same pipe.
        let second = FifoSink(path: path)
        _ = try second.open(.cd)
        let after = testPCM(.cd, frames: 100, seed: 2)
        try write(second, after)
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count = buffer.withUnsafeMutableBytes { read(reader, $0.baseAddress, $0.count) }
        #expect(Array(buffer.prefix(max(count, 0))) == before + after)
        second.close()
        FifoSink.shutdown(path: path)
        #expect(Self.isFIFO(path))
    }

    @Test func aRegularFileIsRefused() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let path = dir.path("file")
        _ = FileManager.default.createFile(atPath: path, contents: Data([1]))
        #expect {
            _ = try FifoSink(path: path).open(.cd)
        } throws: { error in
            (error as? OutputError)?.message.contains("not a FIFO") == true
        }
    }
}

@Suite struct PipeSinkTests {
    @Test func theCommandReceivesExactlyTheWrittenBytes() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let file = dir.path("out.raw")
        // The sleep makes close wait for a command that is still busy when its input ends.
        let sink = PipeSink(command: "sleep 0.2; cat > '\(file)'")
        #expect(sink.keepsTime)
        #expect(try sink.open(.cd) == .cd)
        let pcm = testPCM(.cd, frames: 200_000)
        for chunk in frameChunks(pcm, frameSize: 4, sizesInFrames: [1, 50_000, 333]) { try write(sink, chunk) }
        sink.drain()
        sink.close()
        #expect(sink.processID == nil)
        #expect(firstDifference(readFile(file), pcm) == nil)
    }

    /// The command gets its input and the standard descriptors, nothing else of the server's, not even what was
    /// opened without close-on-exec (a client connection, a socket systemd passed).
    @Test func theCommandInheritsOnlyTheStandardDescriptors() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let file = dir.path("fds.txt")
        let inheritable = Glibc.open("/dev/null", O_RDONLY)
        #expect(inheritable > 2)
        defer { Glibc.close(inheritable) }
        let sink = PipeSink(command: "if [ -e /proc/$$/fd/\(inheritable) ]; then echo kept; else echo closed; fi > '\(file)'")
        _ = try sink.open(.cd)
        sink.drain()
        sink.close()
        #expect(String(decoding: readFile(file), as: UTF8.self) == "closed\n")
    }

    @Test func aCommandThatExitsMakesWriteFail() throws {
        let sink = PipeSink(command: "exit 3")
        _ = try sink.open(.cd)
        let pcm = testPCM(.cd, frames: 4410)
        var failure: OutputError?
        for _ in 0..<500 {
            do { try write(sink, pcm) } catch { failure = error as? OutputError; break }
            usleep(10_000)
        }
        let message = try #require(failure).message
        #expect(message.contains("exit 3"))
        #expect(message.contains("status 3"))
        sink.close()
    }

    @Test func reopeningStartsTheCommandAgain() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let file = dir.path("out.raw")
        let sink = PipeSink(command: "cat >> '\(file)'")
        let first = testPCM(.cd, frames: 1000, seed: 1)
        let second = testPCM(.cd, frames: 1000, seed: 2)
        _ = try sink.open(.cd)
        let firstChild = sink.processID
        try write(sink, first)
        _ = try sink.open(.cd)
        #expect(sink.processID != firstChild)
        try write(sink, second)
        sink.close()
        #expect(firstDifference(readFile(file), first + second) == nil)
    }

    @Test func aCommandIgnoringItsInputIsStoppedOnClose() throws {
        let sink = PipeSink(command: "exec sleep 60")
        sink.exitTimeout = 0.2
        _ = try sink.open(.cd)
        let started = Date()
        sink.close()
        #expect(Date().timeIntervalSince(started) < 5)
        #expect(sink.processID == nil)
    }
}
