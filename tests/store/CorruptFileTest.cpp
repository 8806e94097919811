// A file at the database path that is not a healthy run store: a clear error naming the file, and
// the file's bytes exactly as they were.
#include <gtest/gtest.h>

#include "StoreTestSupport.h"
#include "store/RunRecorder.h"
#include "store/RunStore.h"
#include "store/SqliteDatabase.h"
#include "store/StoreError.h"

using namespace graphopt;
using namespace graphopt::testing;

namespace {

// Opening must throw a StoreError that names the file; returns its message.
std::string expectRefused(const std::string& path) {
    const std::string before = readBytes(path);
    std::string msg;
    try {
        RunStore store(path);
        ADD_FAILURE() << "opened " << path;
    } catch (const StoreError& e) {
        msg = e.what();
        EXPECT_EQ(msg.rfind(path + ":", 0), 0u) << msg;
        EXPECT_NE(msg.find("left unchanged"), std::string::npos) << msg;
    }
    EXPECT_EQ(readBytes(path), before) << "the refused file was modified";
    // A recorder opening the same path is refused the same way.
    EXPECT_THROW(RunRecorder(path, sampleSpec(), std::nullopt), StoreError);
    EXPECT_EQ(readBytes(path), before);
    return msg;
}

std::string healthyStoreBytes(const TempDir& dir) {
    const std::string path = dir.file("healthy.db");
    {
        RunStore store(path);
        store.database().exec("PRAGMA wal_checkpoint(TRUNCATE)");
        for (int r = 0; r < 20; ++r) {
            int64_t id = store.beginRun(sampleSpec(), std::nullopt);
            std::vector<ProgressEvent> events;
            for (int i = 0; i < 100; ++i) events.push_back(sampleEvent(i));
            store.appendEvents(id, events);
            store.endRun(id, RunStatus::Finished);
        }
    }
    return readBytes(path);
}

}  // namespace

TEST(CorruptFile, RandomBytes) {
    TempDir dir;
    std::string junk;
    for (int i = 0; i < 8192; ++i) junk += char((i * 7919 + 13) & 0xff);
    writeBytes(dir.file("runs.db"), junk);
    auto msg = expectRefused(dir.file("runs.db"));
    EXPECT_NE(msg.find("not an SQLite database"), std::string::npos) << msg;
}

TEST(CorruptFile, ZeroLengthFile) {
    // SQLite itself would take an empty file for an empty database and write into it.
    TempDir dir;
    writeBytes(dir.file("runs.db"), "");
    auto msg = expectRefused(dir.file("runs.db"));
    EXPECT_NE(msg.find("empty"), std::string::npos) << msg;
}

TEST(CorruptFile, TextFile) {
    TempDir dir;
    writeBytes(dir.file("runs.db"), "these are my notes about the runs\nnot a database\n");
    auto msg = expectRefused(dir.file("runs.db"));
    EXPECT_NE(msg.find("not an SQLite database"), std::string::npos) << msg;
}

TEST(CorruptFile, TruncatedHeader) {
    TempDir dir;
    writeBytes(dir.file("runs.db"), healthyStoreBytes(dir).substr(0, 60));
    expectRefused(dir.file("runs.db"));
}

TEST(CorruptFile, DamagedPagesBehindAValidHeader) {
    TempDir dir;
    std::string bytes = healthyStoreBytes(dir);
    ASSERT_GT(bytes.size(), 5u * 4096);
    // Scribble over the second and third pages (B-tree pages of the schema's tables).
    for (size_t i = 4096; i < 3 * 4096; ++i) bytes[i] = char(0xA5 ^ (i & 0x3f));
    writeBytes(dir.file("runs.db"), bytes);
    auto msg = expectRefused(dir.file("runs.db"));
    EXPECT_TRUE(msg.find("corrupt") != std::string::npos || msg.find("cannot be read") != std::string::npos) << msg;
}

TEST(CorruptFile, TruncatedDatabase) {
    TempDir dir;
    std::string bytes = healthyStoreBytes(dir);
    writeBytes(dir.file("runs.db"), bytes.substr(0, bytes.size() / 2));
    expectRefused(dir.file("runs.db"));
}

TEST(CorruptFile, AnotherProgramsSqliteDatabase) {
    TempDir dir;
    const std::string path = dir.file("runs.db");
    {
        SqliteDatabase db(path, SqliteDatabase::Mode::ReadWriteCreate);
        db.exec("CREATE TABLE contacts (name TEXT, phone TEXT); INSERT INTO contacts VALUES ('a', '1');");
    }
    auto msg = expectRefused(path);
    EXPECT_NE(msg.find("another program"), std::string::npos) << msg;
}

TEST(CorruptFile, DirectoryAtThePath) {
    TempDir dir;
    std::filesystem::create_directory(dir.file("runs.db"));
    EXPECT_THROW(RunStore(dir.file("runs.db")), StoreError);
}

TEST(CorruptFile, HealthyStoreStillOpens) {
    TempDir dir;
    healthyStoreBytes(dir);
    RunStore store(dir.file("healthy.db"));
    EXPECT_EQ(store.listRuns().size(), 20u);
}
