// Lines of a real pipe: a whole line is handed over without waiting, a part of one is not, and
// the end is told apart from "nothing yet".
#include "io/posix/fd_line_input_posix.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "util/unique_fd.hpp"

namespace aaw {
namespace {

class FdLineInputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    int ends[2];
    ASSERT_EQ(::pipe(ends), 0);
    m_read = UniqueFd(ends[0]);
    m_write = UniqueFd(ends[1]);
    m_input = make_fd_line_input(m_read.get());
  }
  void write(const std::string& text) {
    ASSERT_EQ(::write(m_write.get(), text.data(), text.size()), static_cast<ssize_t>(text.size()));
  }

  UniqueFd m_read;
  UniqueFd m_write;
  std::unique_ptr<LineInput> m_input;
};

TEST_F(FdLineInputTest, AWholeLineComesWithoutWaitingAndAPartOfOneDoesNot) {
  EXPECT_EQ(m_input->next(false), std::nullopt) << "nothing written yet";
  write("commit a\nmine b\nsha");
  EXPECT_EQ(m_input->next(false), "commit a");
  EXPECT_EQ(m_input->next(false), "mine b");
  EXPECT_EQ(m_input->next(false), std::nullopt) << "only part of the next line";
  write("re 2\n");
  EXPECT_EQ(m_input->next(false), "share 2");
}

TEST_F(FdLineInputTest, WaitingGivesTheRestAndThenTheEnd) {
  write("one\nlast without a newline");
  m_write.reset();
  EXPECT_EQ(m_input->next(true), "one");
  EXPECT_EQ(m_input->next(true), "last without a newline");
  EXPECT_EQ(m_input->next(true), std::nullopt);
  EXPECT_EQ(m_input->next(false), std::nullopt);
}

}  // namespace
}  // namespace aaw
