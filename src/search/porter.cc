#include "search/porter.h"

#include <vector>

namespace pc {
namespace {

// FTS5 stems tokens of these lengths only.
constexpr size_t kMinStemmed = 3;
constexpr size_t kMaxStemmed = 64;

bool IsVowelLetter(char c) { return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u'; }

// Whether each byte of `w` is a consonant: not a vowel letter, and a 'y' only after a vowel or at
// the start (a 'y' after a consonant is a vowel).
std::vector<bool> Consonants(std::string_view w) {
  std::vector<bool> out(w.size());
  for (size_t i = 0; i < w.size(); ++i)
    out[i] = !IsVowelLetter(w[i]) && !(w[i] == 'y' && i > 0 && out[i - 1]);
  return out;
}

// Porter's m: the number of vowel-consonant sequences in [C](VC)^m[V].
int Measure(std::string_view stem) {
  const std::vector<bool> cons = Consonants(stem);
  int m = 0;
  for (size_t i = 1; i < cons.size(); ++i) m += !cons[i - 1] && cons[i] ? 1 : 0;
  return m;
}

bool HasVowel(std::string_view stem) {
  for (bool c : Consonants(stem))
    if (!c) return true;
  return false;
}

// *o: the stem ends consonant-vowel-consonant, the last not w, x or y.
bool EndsCvc(std::string_view stem) {
  if (stem.size() < 3) return false;
  const char last = stem.back();
  if (last == 'w' || last == 'x' || last == 'y') return false;
  const std::vector<bool> cons = Consonants(stem);
  const size_t n = cons.size();
  return cons[n - 3] && !cons[n - 2] && cons[n - 1];
}

enum class Condition { kNone, kMeasureAbove0, kMeasureAbove1, kMeasureAbove1AndSorT };

bool Holds(Condition c, std::string_view stem) {
  switch (c) {
    case Condition::kNone:
      return true;
    case Condition::kMeasureAbove0:
      return Measure(stem) > 0;
    case Condition::kMeasureAbove1:
      return Measure(stem) > 1;
    case Condition::kMeasureAbove1AndSorT:
      return Measure(stem) > 1 && (stem.back() == 's' || stem.back() == 't');
  }
  return false;
}

// The suffix rules of steps 1b (after "ed"/"ing" went), 2, 3 and 4, in the order they are tried.
enum class Step { k1b, k2, k3, k4, k4Ion };
struct Rule {
  Step step;
  std::string_view suffix;
  std::string_view replacement;
};
constexpr Rule kRules[] = {
    {Step::k1b, "at", "ate"},     {Step::k1b, "bl", "ble"},     {Step::k1b, "iz", "ize"},
    {Step::k2, "ational", "ate"}, {Step::k2, "tional", "tion"}, {Step::k2, "enci", "ence"},
    {Step::k2, "anci", "ance"},   {Step::k2, "izer", "ize"},    {Step::k2, "logi", "log"},
    {Step::k2, "bli", "ble"},     {Step::k2, "alli", "al"},     {Step::k2, "entli", "ent"},
    {Step::k2, "eli", "e"},       {Step::k2, "ousli", "ous"},   {Step::k2, "ization", "ize"},
    {Step::k2, "ation", "ate"},   {Step::k2, "ator", "ate"},    {Step::k2, "alism", "al"},
    {Step::k2, "iveness", "ive"}, {Step::k2, "fulness", "ful"}, {Step::k2, "ousness", "ous"},
    {Step::k2, "aliti", "al"},    {Step::k2, "iviti", "ive"},   {Step::k2, "biliti", "ble"},
    {Step::k3, "icate", "ic"},    {Step::k3, "ative", ""},      {Step::k3, "alize", "al"},
    {Step::k3, "iciti", "ic"},    {Step::k3, "ical", "ic"},     {Step::k3, "ful", ""},
    {Step::k3, "ness", ""},       {Step::k4, "al", ""},         {Step::k4, "ance", ""},
    {Step::k4, "ence", ""},       {Step::k4, "er", ""},         {Step::k4, "ic", ""},
    {Step::k4, "able", ""},       {Step::k4, "ible", ""},       {Step::k4, "ant", ""},
    {Step::k4, "ement", ""},      {Step::k4, "ment", ""},       {Step::k4, "ent", ""},
    {Step::k4, "ou", ""},         {Step::k4, "ism", ""},        {Step::k4, "ate", ""},
    {Step::k4, "iti", ""},        {Step::k4, "ous", ""},        {Step::k4, "ive", ""},
    {Step::k4, "ize", ""},        {Step::k4Ion, "ion", ""}};

// The first rule of `step` whose suffix ends `w` (with at least one byte before it) decides: its
// replacement when the condition holds of the stem, else nothing. Longer suffixes come before the
// shorter ones they end with. Returns whether a suffix matched.
bool ApplyFirst(std::string& w, Step step, Condition condition) {
  for (const Rule& r : kRules) {
    if (r.step != step || w.size() <= r.suffix.size() ||
        w.compare(w.size() - r.suffix.size(), r.suffix.size(), r.suffix) != 0)
      continue;
    const std::string_view stem(w.data(), w.size() - r.suffix.size());
    if (Holds(condition, stem)) w.replace(stem.size(), r.suffix.size(), r.replacement);
    return true;
  }
  return false;
}

bool EndsWith(std::string_view w, std::string_view suffix) {
  return w.size() > suffix.size() && w.substr(w.size() - suffix.size()) == suffix;
}

void Step1a(std::string& w) {
  if (w.back() != 's') return;
  if (EndsWith(w, "sses") || EndsWith(w, "ies"))
    w.resize(w.size() - 2);
  else if (w[w.size() - 2] != 's')
    w.pop_back();
}

void Step1b(std::string& w) {
  if (EndsWith(w, "eed")) {
    if (Measure(std::string_view(w).substr(0, w.size() - 3)) > 0) w.pop_back();
    return;
  }
  size_t cut = 0;
  if (EndsWith(w, "ed") && HasVowel(std::string_view(w).substr(0, w.size() - 2)))
    cut = 2;
  else if (EndsWith(w, "ing") && HasVowel(std::string_view(w).substr(0, w.size() - 3)))
    cut = 3;
  if (cut == 0) return;
  w.resize(w.size() - cut);
  if (ApplyFirst(w, Step::k1b, Condition::kNone)) return;
  const char c = w.back();
  if (!IsVowelLetter(c) && c != 'l' && c != 's' && c != 'z' && w.size() > 1 && c == w[w.size() - 2])
    w.pop_back();  // a double consonant ('yy' too) but ll, ss, zz: one
  else if (Measure(w) == 1 && EndsCvc(w))
    w.push_back('e');
}

void Step1c(std::string& w) {
  if (w.back() == 'y' && HasVowel(std::string_view(w).substr(0, w.size() - 1))) w.back() = 'i';
}

void Step5(std::string& w) {
  if (w.back() == 'e') {
    const std::string_view stem(w.data(), w.size() - 1);
    const int m = Measure(stem);
    if (m > 1 || (m == 1 && !EndsCvc(stem))) w.pop_back();
  }
  if (w.size() > 1 && w.back() == 'l' && w[w.size() - 2] == 'l' &&
      Measure(std::string_view(w).substr(0, w.size() - 1)) > 1)
    w.pop_back();
}

}  // namespace

std::string PorterStem(std::string_view token) {
  std::string w(token);
  if (w.size() < kMinStemmed || w.size() > kMaxStemmed) return w;
  Step1a(w);
  Step1b(w);
  Step1c(w);
  ApplyFirst(w, Step::k2, Condition::kMeasureAbove0);
  ApplyFirst(w, Step::k3, Condition::kMeasureAbove0);
  if (!ApplyFirst(w, Step::k4, Condition::kMeasureAbove1))
    ApplyFirst(w, Step::k4Ion, Condition::kMeasureAbove1AndSorT);
  Step5(w);
  return w;
}

}  // namespace pc
