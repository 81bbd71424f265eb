// StableList: indexed like a vector, and an element never moves while the list grows, is copied
// from or moved from (what the compute graph's builders and scheduler rely on).
#include "core/common/stablelist.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace llamafit {
namespace {

StableList<std::string> numbered(int count) {
    StableList<std::string> list;
    for (int i = 0; i < count; ++i) {
        list.push_back(std::to_string(i));
    }
    return list;
}

TEST(StableList, ElementsStayWhereTheyAreWhileTheListGrows) {
    StableList<std::string> list = numbered(1);
    std::vector<const std::string*> addresses{&list[0]};
    for (int i = 1; i < 2000; ++i) { // several chunks
        list.push_back(std::to_string(i));
        addresses.push_back(&list[static_cast<std::size_t>(i)]);
    }
    ASSERT_EQ(list.size(), 2000u);
    for (std::size_t i = 0; i < list.size(); ++i) {
        EXPECT_EQ(&list[i], addresses[i]);
        EXPECT_EQ(list.at(i), std::to_string(i));
    }
}

TEST(StableList, AtPastTheEndThrowsOutOfRange) {
    const StableList<std::string> list = numbered(256); // exactly one full chunk
    EXPECT_EQ(list.at(255), "255");
    EXPECT_THROW((void)list.at(256), std::out_of_range);
    EXPECT_THROW((void)StableList<int>().at(0), std::out_of_range);
}

TEST(StableList, ACopyIsItsOwnAndKeepsItsElementsInPlaceWhenItGrows) {
    const StableList<std::string> original = numbered(300);
    StableList<std::string> copy = original;
    const std::string* first = &copy[0];
    const std::string* last = &copy[299];
    for (int i = 300; i < 1000; ++i) {
        copy.push_back(std::to_string(i));
    }
    EXPECT_EQ(&copy[0], first);
    EXPECT_EQ(&copy[299], last);
    copy[0] = "changed";
    EXPECT_EQ(original[0], "0");
    EXPECT_EQ(original.size(), 300u);
    copy = original;
    EXPECT_EQ(copy.size(), 300u);
    EXPECT_EQ(copy[0], "0");
}

TEST(StableList, MovingTakesTheElementsAndEmptiesTheSource) {
    StableList<std::string> source = numbered(10);
    const std::string* element = &source[3];
    StableList<std::string> target = std::move(source);
    EXPECT_EQ(&target[3], element);
    EXPECT_EQ(target.size(), 10u);
    EXPECT_TRUE(source.empty()); // a moved-from list is empty and usable
    source.push_back("again");
    EXPECT_EQ(source.size(), 1u);
    EXPECT_EQ(source[0], "again");
}

TEST(StableList, IteratesInIndexOrder) {
    StableList<std::string> list = numbered(600);
    int expected = 0;
    for (const std::string& value : std::as_const(list)) {
        EXPECT_EQ(value, std::to_string(expected++));
    }
    EXPECT_EQ(expected, 600);
    for (std::string& value : list) {
        value += "!";
    }
    EXPECT_EQ(list[599], "599!");
}

} // namespace
} // namespace llamafit
