import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Files only the user may read: the login cookies, the listening reports waiting for NetEase.
public enum PrivateFile {
    /// Writes a sibling temporary file created with mode 0600 (`O_EXCL`, so never a moment with wider permissions
    /// and never someone else's file), then renames it over `file`: a crash leaves the old file or the new one,
    /// not half of one.
    public static func write(_ data: Data, to file: String) throws(PrivateFileError) {
        let temporary = file + ".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw PrivateFileError("cannot create \(temporary): \(String(cString: strerror(errno)))")
        }
        var ok = fchmod(descriptor, 0o600) == 0
        data.withUnsafeBytes { bytes in
            var offset = 0
            while ok, offset < bytes.count {
                let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written <= 0 { ok = false } else { offset += written }
            }
        }
        ok = ok && fsync(descriptor) == 0
        close(descriptor)
        guard ok, rename(temporary, file) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw PrivateFileError("cannot write \(file): \(reason)")
        }
    }
}

public struct PrivateFileError: Error, Equatable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
