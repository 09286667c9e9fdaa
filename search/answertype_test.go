package search

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/nova-recall/nova/lexical"
)

func TestQueryAnswerType(t *testing.T) {
	cases := []struct {
		name, query, want string
	}{
		{"how long", "How long has Caroline had her current group of friends for?", AnswerDuration},
		{"how many units", "How many years did Jon work at the bank?", AnswerDuration},
		{"how long ago is a time", "How long ago did Mel paint the sunrise?", AnswerTime},
		{"how old", "How old is Melanie's daughter?", AnswerAge},
		{"what age", "At what age did he learn to swim?", AnswerAge},
		{"how many", "How many children does Melanie have?", AnswerCount},
		{"how much", "How much did the guitar cost?", AnswerCount},
		{"how much time", "How much time did she spend in Spain?", AnswerDuration},
		{"when first", "When did Caroline go to the LGBTQ support group?", AnswerTime},
		{"when after a comma", "After the move, when did she start the new job?", AnswerTime},
		{"what year", "In what year did John join the army?", AnswerTime},
		{"what time", "What time does the pottery class start?", AnswerTime},
		{"why", "Why did Gina decide to start her own clothing store?", AnswerReason},
		{"the reason", "What was the reason for the delay?", AnswerReason},
		{"the reason contracted", "What's the reason the deploy failed?", AnswerReason},
		{"the reason contracted with a curly apostrophe", "what’s the reason for the delay", AnswerReason},
		{"where first", "Where did Caroline move from?", AnswerPlace},
		{"which city", "Which city did Jon visit for the fashion fair?", AnswerPlace},
		{"earliest cue wins", "Why was he late, and how long did it take?", AnswerReason},
		{"when inside a clause asks for something else", "What did Melanie say when Caroline told her the news?", ""},
		{"where inside a clause", "What did they eat at the cafe where they met?", ""},
		{"no question word", "Caroline's favourite book", ""},
		{"what", "What did Melanie paint?", ""},
		{"what favourite book", "What is Melanie's favourite book?", AnswerTitle},
		{"what's favourite book with curly apostrophes", "What’s Melanie’s favourite book?", AnswerTitle},
		{"zh duration", "王芳练钢琴练了多久？", AnswerDuration},
		{"zh duration 多长时间", "手术后要休息多长时间？", AnswerDuration},
		{"zh how many days is a duration", "他们在西安玩了几天？", AnswerDuration},
		{"zh age", "李雷的表弟今年几岁？", AnswerAge},
		{"zh age 多大了", "那只猫多大了？", AnswerAge},
		{"zh size is no age", "新房子有多大？", ""},
		{"zh count", "李雷家养了几只猫？", AnswerCount},
		{"zh count 多少", "钢琴花了多少钱？", AnswerCount},
		{"zh time", "婚礼是什么时候？", AnswerTime},
		{"zh clock", "比赛几点开始？", AnswerTime},
		{"zh month", "他几月去的西安？", AnswerTime},
		{"zh which days", "文静的舞蹈课是哪几天上？", AnswerTime},
		{"zh reason", "王芳为什么要搬家？", AnswerReason},
		{"zh reason traditional", "王芳為什麼要搬家？", AnswerReason},
		{"zh place", "新房子在哪里？", AnswerPlace},
		{"zh place city", "表哥的婚礼在哪座城市办？", AnswerPlace},
		{"zh none", "王芳的猫叫什么名字？", ""},
		{"which book", "Which book did Caroline recommend to Melanie?", AnswerTitle},
		{"what movie", "What movie did Jon and Gina watch last weekend?", AnswerTitle},
		{"what film", "what film did she see?", AnswerTitle},
		{"what favourite show", "What is Mel's favorite show?", AnswerTitle},
		{"what new song", "What new song did he learn on the guitar?", AnswerTitle},
		{"which sci-fi novel", "Which sci-fi novel is she reading?", AnswerTitle},
		{"name of the book", "What is the name of the book Tim lent her?", AnswerTitle},
		{"title of her podcast", "What's the title of her podcast?", AnswerTitle},
		{"what kind of book is a genre", "What kind of books does Caroline like?", ""},
		{"what type of movie is a genre", "What type of movies does he enjoy?", ""},
		{"a book without a question word", "Did Caroline like the book?", ""},
		{"zh which book", "林晓最近在读哪本书？", AnswerTitle},
		{"zh which novel with a genre", "林晓在读哪本科幻小说？", AnswerTitle},
		{"zh which movie", "他们周末看了哪部电影？", AnswerTitle},
		{"zh which show", "王芳最近在追哪部剧？", AnswerTitle},
		{"zh which song", "陈默学会弹哪首歌了？", AnswerTitle},
		{"zh what song", "婚礼上放了什么歌？", AnswerTitle},
		{"zh what book", "他推荐了什么书？", AnswerTitle},
		{"zh book title", "那本小说的书名是什么？", AnswerTitle},
		{"zh how many books is a count", "他今年读了几本书？", AnswerCount},
		{"zh how many subjects", "主管护师考试一共考几科？", AnswerCount},
		{"zh how heavy", "豆包现在多重？", AnswerCount},
		{"zh how far", "从家到公司多远？", AnswerCount},
		// Everyday forms of the same question words: colloquial 啥, 什么时间
		// beside 什么时候, 几时, "how come" for why, and the date asked
		// for with a verb between ("what was the date").
		{"zh colloquial when", "你啥时候到的？", AnswerTime},
		{"zh what time", "会议定在什么时间？", AnswerTime},
		{"zh when 几时", "他几时回来？", AnswerTime},
		{"zh colloquial reason", "搬家是啥原因？", AnswerReason},
		{"how come", "How come the deploy failed twice?", AnswerReason},
		{"what was the date", "What was the date of the recital?", AnswerTime},
		{"what's the date", "What's the date of the wedding?", AnswerTime},
		{"what was the day like asks for no time", "What was the day like at the beach?", ""},
		// A span ago is a time, as "how long ago" is; "how often" asks
		// for a count; "but" may open a question as "and" does.
		{"how many days ago", "How many days ago did the deploy fail?", AnswerTime},
		{"zh how many days ago", "他几天前来的？", AnswerTime},
		{"zh how many years ago", "你们多少年前认识的？", AnswerTime},
		{"zh how long ago", "她多久以前搬的家？", AnswerTime},
		{"how often", "How often does Tomas practise the cello?", AnswerCount},
		{"but when", "But when did it open?", AnswerTime},
		{"but where", "But where did they go after that?", AnswerPlace},
		{"zh which country", "她去了哪个国家？", AnswerPlace},
		// A clause that opens with "when" or "where" and a subject sets the
		// scene; the question is what follows it.
		{"when clause then what", "When I was in Paris, what did I eat?", ""},
		{"when clause then where", "When Caroline moved, where did she live?", AnswerPlace},
		{"where clause then why", "Where we used to live, why did the bakery close?", AnswerReason},
		{"when question then why", "When did you move, and why?", AnswerTime},
		{"when is", "When is the recital, and who plays?", AnswerTime},
		{"zh 几乎 is no count", "他几乎每天都跑步吗？", ""},
		{"how far", "How far did she run last Sunday?", AnswerCount},
		{"zh where the bookshop is", "书店在哪里？", AnswerPlace},
		{"zh which side", "林晓的新住处在城市的哪一边？", AnswerDirection},
		{"zh which side after 在", "他家在哪边？", AnswerDirection},
		{"zh which direction", "火车往哪个方向开？", AnswerDirection},
		{"which side of town", "Which side of town does Jon live on?", AnswerDirection},
		{"what direction", "In what direction did they hike?", AnswerDirection},
		{"which side is", "Which side is the kitchen on?", AnswerDirection},
		{"side effects are no side", "What side effects did the new medication have?", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := QueryAnswerType(c.query); got != c.want {
				t.Errorf("QueryAnswerType(%q) = %q, want %q", c.query, got, c.want)
			}
		})
	}
}

func TestHasAnswerForm(t *testing.T) {
	cases := []struct {
		typ, text string
		want      bool
	}{
		{AnswerDuration, "Caroline: I've known these friends for 4 years now.", true},
		{AnswerDuration, "Melanie: It took an hour and a half to get there.", true},
		{AnswerDuration, "Jon: We drove for a couple of weeks along the coast.", true},
		{AnswerDuration, "Gina: I signed a 5-year lease yesterday.", true},
		{AnswerDuration, "Mel: I've been painting for years.", true},
		{AnswerDuration, "Caroline: These friends mean the world to me.", false},
		{AnswerDuration, "Jon: I was born in 1990 and moved in May.", false},
		{AnswerDuration, "李雷：我弹了一个半小时。", true},
		{AnswerDuration, "王芳：大概三个多月吧。", true},
		{AnswerDuration, "王芳：我们在西安待了五天。", true},
		{AnswerDuration, "李雷：五月我们去了西安。", false},
		{AnswerDuration, "李雷：我们在那里住了很久。", false},
		{AnswerDuration, "李雷：2023年我们去了西安。", false},

		{AnswerAge, "Melanie: My daughter is 7 years old and loves to swim.", true},
		{AnswerAge, "John: My nephew turned 12 last week.", true},
		{AnswerAge, "Maria: She is a five-year-old girl.", true},
		{AnswerAge, "Maria: The house is five years old.", true},
		{AnswerAge, "Maria: She loves her old school.", false},
		{AnswerAge, "王芳：表弟今年十八岁。", true},
		{AnswerAge, "王芳：表弟今年读高中。", false},

		{AnswerCount, "Melanie: I have three kids.", true},
		{AnswerCount, "Jon: The guitar cost $450.", true},
		{AnswerCount, "Gina: I bought a dozen roses.", true},
		{AnswerCount, "Gina: I bought some roses for her.", false},
		{AnswerCount, "李雷：我们家养了两只猫。", true},
		{AnswerCount, "李雷：一共花了3000块。", true},
		{AnswerCount, "李雷：我去过一次。", true},
		{AnswerCount, "李雷：我有一个朋友一直在帮我。", false},
		{AnswerCount, "周敏：孙老师打了八十二分，说音阶还得再练。", true},
		{AnswerCount, "周敏：十分感谢，下次请你吃饭。", false},
		{AnswerCount, "周敏：路上花了四十分钟。", false},
		{AnswerCount, "许航：出来了，初试三百九十二，过线不少。", true},
		{AnswerCount, "雨桐：减到十一公斤了，那个大学生遛得勤。", true},
		{AnswerCount, "雨桐：前天考的，四科，考到最后手都是抖的。", true},
		{AnswerCount, "雨桐：你千万别去那家店，万一又出事呢。", false},

		{AnswerTime, "Caroline: I went to a LGBTQ support group yesterday.", true},
		{AnswerTime, "Mel: We went camping last weekend.", true},
		{AnswerTime, "Jon: The show starts at 7pm on Friday.", true},
		{AnswerTime, "Jon: It starts at 19:30.", true},
		{AnswerTime, "Jon: This may be why the build broke.", false},
		{AnswerTime, "Gina: This May we moved to Berlin.", true},
		{AnswerTime, "Gina: We moved in May.", true},
		{AnswerTime, "Gina: I lost my job two months ago.", true},
		{AnswerTime, "Gina: We moved in March.", true},
		{AnswerTime, "Gina: You may like it.", false},
		{AnswerTime, "Gina: I love the shop and its people.", false},
		{AnswerTime, "王芳：我们上周六去看了房子。", true},
		{AnswerTime, "王芳：手术定在5月12号。", true},
		{AnswerTime, "王芳：比赛三点半开始。", true},
		{AnswerTime, "王芳：两年前我就想学钢琴了。", true},
		{AnswerTime, "王芳：我有一点累。", false},
		{AnswerTime, "王芳：房子很漂亮，我很喜欢。", false},

		{AnswerReason, "Gina: I started the store because I love fashion.", true},
		{AnswerReason, "Gina: I saved money so that I could open a store.", true},
		{AnswerReason, "Gina: That's why I opened it.", true},
		{AnswerReason, "Gina: I opened a store in the city.", false},
		{AnswerReason, "王芳：因为离公司近，所以搬了。", true},
		{AnswerReason, "王芳：我们搬到了城东。", false},

		{AnswerPlace, "Jon: I was in Paris last month.", true},
		{AnswerPlace, "Caroline: I moved from Sweden four years ago.", true},
		{AnswerPlace, "Mel: We camped at the beach.", true},
		{AnswerPlace, "Mel: We met in June.", false},
		{AnswerPlace, "Mel: I believe in kindness.", false},
		{AnswerPlace, "Mel: At First I was scared.", false},
		{AnswerPlace, "王芳：新房子在城东，离地铁站很近。", true},
		{AnswerPlace, "王芳：婚礼在杭州市办。", true},
		{AnswerPlace, "王芳：我今天在家。", true},
		{AnswerPlace, "王芳：我在想要不要去。", false},
		{AnswerDirection, "林晓：新房子在城东，离公司近多了。", true},
		{AnswerDirection, "林晓：就在地铁站北边。", true},
		{AnswerDirection, "林晓：停在左手边第二个车位。", true},
		{AnswerDirection, "林晓：我去超市买了点东西。", false},
		{AnswerDirection, "林晓：下个月去北京和南京出差。", false},
		{AnswerDirection, "Jon: We live on the east side now.", true},
		{AnswerDirection, "Jon: The trail runs northward along the river.", true},
		{AnswerDirection, "Jon: That's right, we moved in May.", false},
		{AnswerTitle, "林晓：我开始读《三体》了，第一部看完了。", true},
		{AnswerTitle, "林晓：我在读一本科幻小说。", false},
		{AnswerTitle, "Caroline: I loved \"Charlotte's Web\" as a kid.", true},
		{AnswerTitle, "Caroline: My favourite is \u201cThe Little Prince\u201d.", true},
		{AnswerTitle, "Caroline: I just finished 'Becoming' by Michelle Obama.", true},
		{AnswerTitle, "Jon: I'm reading Dune right now.", true},
		{AnswerTitle, "Jon: We watched The Office all weekend.", true},
		{AnswerTitle, "Jon: I've been listening to Imagine Dragons a lot.", true},
		{AnswerTitle, "Jon: Have you seen the movie Inception?", true},
		{AnswerTitle, "Jon: I read a book called Educated last year.", true},
		{AnswerTitle, "Jon: She said \"you can do it\" and I believed her.", false},
		{AnswerTitle, "Jon: That's Caroline's book, isn't it?", false},
		{AnswerTitle, "Jon: I love to read. It calms me down.", false},
		{AnswerTitle, "Jon: I read it in June.", false},
		{AnswerTitle, "Jon: We watched the kids play in the park.", false},
		{AnswerTitle, "Jon: I'll show Mel the pictures.", false},
		{AnswerPlace, "王芳：我表姐下个月在苏州结婚。", true},
		{AnswerPlace, "王芳：原本计划去青城山也取消了。", true},
		{AnswerPlace, "王芳：我跑完杭州马拉松了！", true},
		{AnswerPlace, "李雷：已经能弹《成都》了。", false},
		{AnswerPlace, "李雷：孩子长大了，最近在学吉他。", false},
		{AnswerPlace, "李雷：周末我们去登山。", false},
		// A place named after a verb of going as after 在; the bare 到家
		// and 到站 are arriving, not places.
		{AnswerPlace, "林晓：打算去流浪动物救助站领养。", true},
		{AnswerPlace, "林晓：我刚从南山区过来。", true},
		{AnswerPlace, "方磊：姐，到家了吗？", false},
		{AnswerPlace, "方磊：车快到站了。", false},
		{AnswerPlace, "方磊：去年生意不好。", false},
	}
	for _, c := range cases {
		t.Run(c.typ+"/"+c.text, func(t *testing.T) {
			if got := hasAnswerForm(c.typ, c.text, lexical.Normalize(c.text)); got != c.want {
				t.Errorf("hasAnswerForm(%s, %q) = %v, want %v", c.typ, c.text, got, c.want)
			}
		})
	}
	if hasAnswerForm("colour", "red", "red") {
		t.Error("an unknown type has a form")
	}
}

func BenchmarkHasAnswerForm(b *testing.B) {
	texts := []string{
		"Caroline: I went to a LGBTQ support group yesterday and it was so powerful, the stories really moved me.",
		"Melanie: That's awesome! My kids and I painted a sunrise together, it was so much fun and they loved it.",
		"王芳：我们上周末去看了新房子，离公司很近，走路十分钟就到了。",
	}
	norms := make([]string, len(texts))
	for i, t := range texts {
		norms[i] = lexical.Normalize(t)
	}
	for _, typ := range []string{AnswerDuration, AnswerAge, AnswerCount, AnswerTime, AnswerReason, AnswerPlace, AnswerTitle} {
		b.Run(typ, func(b *testing.B) {
			for b.Loop() {
				for i, t := range texts {
					hasAnswerForm(typ, t, norms[i])
				}
			}
		})
	}
}

// FuzzHasAnswerForm: the scanners never panic on any text, and a query
// gets one of the known types or none.
func FuzzHasAnswerForm(f *testing.F) {
	for _, seed := range []string{
		"Caroline: I went there yesterday at 7pm.", "Jon: 3:30", "a 5-year-old", "at", "In", "从2023年到两年前", "在",
		"周", "三个多", "o'clock'", "'", ":", "9:", "", "\x00\xff", "🙂 in 🙂", "因为", "How long ago, when?", "\"", "'a", "\u201c", "read", "read the", "《",
	} {
		f.Add(seed)
	}
	types := []string{AnswerDuration, AnswerAge, AnswerCount, AnswerTime, AnswerReason, AnswerPlace, AnswerTitle}
	f.Fuzz(func(t *testing.T, s string) {
		for _, typ := range types {
			hasAnswerForm(typ, s, lexical.Normalize(s))
		}
		if typ := QueryAnswerType(s); typ != "" && !slices.Contains(types, typ) {
			t.Fatalf("QueryAnswerType(%q) = %q", s, typ)
		}
	})
}

// TestCueWords: a query that an English cue matches holds one of
// cueWords, so skipping the cues without them changes no answer type. The
// queries are random sequences of the words of the cues' own patterns,
// near-misses of them and separators.
func TestCueWords(t *testing.T) {
	vocab := []string{"however", "somewhat", "whence", "nowhere", "renamed", "subtitle", "whichever", "longer", "old", "many", "much"}
	for _, c := range answerCues() {
		src := strings.ReplaceAll(c.re.String(), `\b`, " ")
		vocab = append(vocab, regexp.MustCompile(`[a-z]+`).FindAllString(src, -1)...)
	}
	seps := []string{" ", " ", " ", ", ", "; ", ": ", "'s ", "-", "? "}
	rng := rand.New(rand.NewPCG(3, 3))
	// Cues of four words in a row, which random sequences seldom make.
	queries := []string{"name of the book", "the title of her new podcast", "so where", "then when"}
	for range 5_000 {
		var b strings.Builder
		for i := range 1 + rng.IntN(6) {
			if i > 0 {
				b.WriteString(seps[rng.IntN(len(seps))])
			}
			b.WriteString(vocab[rng.IntN(len(vocab))])
		}
		queries = append(queries, b.String())
	}
	matched := 0
	for _, norm := range queries {
		typ := cueType(norm)
		if typ != "" {
			matched++
		}
		if typ != "" && !mayAskAnswerType(norm) {
			t.Fatalf("cue %s matches %q, which holds none of cueWords", typ, norm)
		}
	}
	if matched < 50 {
		t.Fatalf("only %d random queries matched a cue: the test does not exercise the cues", matched)
	}
}
