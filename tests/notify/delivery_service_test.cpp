// The delivery service on a fake clock: when it looks again, what a round delivers, the thread's
// start and stop, and a flush that stops when asked.
#include "notify/delivery_service.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <nlohmann/json.hpp>

#include "io/sqlite/sqlite_state_store.hpp"
#include "notify/channel_registry.hpp"
#include "support/fake_clock.hpp"
#include "support/fake_github.hpp"
#include "support/fake_http.hpp"
#include "support/temp_dir.hpp"

namespace aaw {
namespace {

using namespace std::chrono_literals;

class DeliveryServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    m_store = std::move(*open_state_store(m_dir.path() / "state.db", "https://example.invalid/r.git"));
    NotifyConfig notify;
    notify.sections["webhook"] = {{"url", "http://127.0.0.1:9/hook"}};
    m_notifier = std::make_unique<Notifier>(m_options, builtin_channels().make_channels(notify, m_context),
                                            *m_store, m_github, *m_log);
    m_service = std::make_unique<DeliveryService>(*m_notifier, *m_store, m_clock, *m_log);
  }

  void queue(int n) {
    CommitRecord record;
    record.commit.id = ObjectId{std::string(39, 'a') + std::to_string(n % 10)};
    for (int i = 0; i < n; ++i)
      record.notifications.push_back({"webhook", Json{{"commit", record.commit.id.hex},
                                                      {"import_statement", "import a"},
                                                      {"function_path", "f" + std::to_string(i)}}});
    ASSERT_TRUE(m_store->record(record));
  }

  test::TempDir m_dir{"aaw-delivery"};
  test::FakeClock m_clock{TimePoint(std::chrono::seconds(1'800'000'000))};
  std::shared_ptr<Logger> m_log = null_logger();
  test::FakeHttp m_transport;
  test::FakeGithub m_github;
  ChannelContext m_context{"https://example.invalid/r.git", m_transport, m_github, *m_log};
  NotifierOptions m_options{std::nullopt, 1000ms, 8000ms, 5, 20, 7};
  std::unique_ptr<StateStore> m_store;
  std::unique_ptr<Notifier> m_notifier;
  std::unique_ptr<DeliveryService> m_service;
};

TEST_F(DeliveryServiceTest, IdleRoundLooksAgainAfterTheIdleCheck) {
  EXPECT_EQ(m_service->deliver_once(), m_clock.now() + DeliveryService::k_idle_check);
  EXPECT_TRUE(m_transport.requests().empty());
}

TEST_F(DeliveryServiceTest, RoundThatDeliveredLooksAgainAtOnce) {
  queue(1);
  m_transport.respond(200);
  EXPECT_EQ(m_service->deliver_once(), m_clock.now());
  EXPECT_EQ(m_store->outbox_counts()->delivered, 1);
}

TEST_F(DeliveryServiceTest, BackoffEndingSoonerThanTheIdleCheckIsWhenItLooksAgain) {
  queue(1);
  m_transport.respond(503);
  m_service->deliver_once();  // fails: retried after 500..1000 ms
  TimePoint due = (*m_store->next_notification_due()).value();
  ASSERT_LT(due, m_clock.now() + DeliveryService::k_idle_check);
  EXPECT_EQ(m_service->deliver_once(), due);
}

TEST_F(DeliveryServiceTest, ThreadDeliversWhatIsQueuedAndStops) {
  m_transport.otherwise([](const HttpRequest&) { return Result<HttpResponse>(HttpResponse{200, {}, "ok"}); });
  queue(3);
  // Read on the service's own thread, between its rounds: the store is not shared across threads.
  std::atomic<bool> all_delivered_then_waited{false};
  m_clock.on_sleep([&](std::size_t sleeps) {  // sleeps: how many really waited (a deadline ahead)
    if (sleeps > 0 && m_store->outbox_counts()->delivered == 3) all_delivered_then_waited = true;
  });
  m_service->start();
  for (int i = 0; i < 5000 && !all_delivered_then_waited; ++i) std::this_thread::sleep_for(1ms);
  m_service->stop();
  EXPECT_EQ(m_store->outbox_counts()->delivered, 3);
  EXPECT_FALSE(m_clock.sleeps().empty()) << "it waited on the clock between rounds";
}

TEST_F(DeliveryServiceTest, FlushStopsWhenTheCallerAsks) {
  m_transport.otherwise([](const HttpRequest&) { return Result<HttpResponse>(HttpResponse{200, {}, "ok"}); });
  queue(3);
  int asked = 0;
  m_service->flush(10, 2min, [&] { return ++asked > 2; });
  EXPECT_EQ(m_store->outbox_counts()->delivered, 1);
  EXPECT_EQ(m_store->outbox_counts()->pending, 2);
}

}  // namespace
}  // namespace aaw
