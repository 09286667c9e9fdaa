#!/bin/sh
# Regenerates the Chinese data of the lexical analyzer (licences in
# lexical/data/NOTICE), from the Go modules' own copies:
#   lexical/data/zh-dict.txt.gz  "word frequency" lines for the Chinese
#       segmenter (lexical/segment.go): the words with a corpus frequency
#       of at least 10 from gse's simplified dictionary
#       (108 972 of 352 279 entries, 630 KB compressed; the gse package
#       itself would add its 32 MB of embedded dictionaries to novactl).
#   lexical/data/t2s.tsv.gz  traditional -> simplified characters (the
#       first candidate of OpenCC's TSCharacters table).
#   lexical/data/zh-places.txt.gz  place names (search's answer-type prior):
#       gse's words tagged ns of two Han characters or more with the same
#       frequency floor of 10 as zh-dict.txt.gz (rarer words are no words
#       of the segmenter either, and are mostly obscure county and river
#       names), less the ns-tagged words that are common words first
#       (notPlaces below: 哥哥, 吉他, 长大, 深度, 登山, ...; read by hand
#       over the 3 000 most frequent and a sample of the rest; search
#       only counts a name after a locative, 在苏州 or 去成都, which keeps
#       the rest of the noise out).
set -eu
cd "$(dirname "$0")/.."
gse=$(go mod download -json github.com/go-ego/gse@v0.80.3 | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
cc=$(go mod download -json github.com/longbridgeapp/opencc@v0.3.13 | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
awk '$2 >= 10 { print $1 " " $2 }' "$gse/data/dict/zh/s_1.txt" | gzip -9n > lexical/data/zh-dict.txt.gz
awk -F'\t' '{ split($2, c, " "); if (length($1) > 0 && c[1] != $1) print $1 "\t" c[1] }' "$cc/dictionary/TSCharacters.txt" | LC_ALL=C sort | gzip -9n > lexical/data/t2s.tsv.gz
# ns-tagged words that are mostly common words, verbs or people in
# everyday text (jieba's tags come from a news corpus).
notPlaces='城市 东西 南北 外国 爱国 英雄 太阳 朝廷 哥哥 二哥 阿哥 大伯 上市 永乐 建国 美丽 江湖 王国 开国 共和国
庆典 深度 治安 新鲜 长度 长大 普及 古典 山水 莫非 阴阳 江山 上马 福利 日志 云集 青春 神圣 新建 中断 上半场
广义 上山 下山 登山 兴国 舞美 中密度 上台 契约 入口 入市 入门 入阁 入海 入川 金牙 广布 重阳 英特尔 千古 伦理
中道 天黑 治国 立国 卫国 法典 加盟 密封 立马 莫大 马克思列宁主义 西瓜 南瓜 汉堡 贵宾 嘉宾 沧海 屯田 渡江 渡河
渡海 中和 黄连 苏格拉底 欧阳 欧阳克 郑克 龙大 牡丹 桥头堡 法西斯 北约 苏维埃 伊斯兰 三国 大圣 福临 三藏
琉璃瓦 回国 归国 来京 上门 上路 上街 上楼 上岗 上铺 下海 北风 台独 赞美 喜庆 吉利 登极 礼拜 阿弥陀佛 兴旺
山羊 绵羊 朝野 白嫩 象牙 深渊 如林 夕阳 朝霞 远古 上古 永固 莎士比亚 荷马 哥伦布 新春 苏打 长寿 波及 太极
伦比 安顿 满口 曼联 科教兴市 安邦治国 周坤仁 图道多吉 乌云其木格 欧几里得 美德 奥巴马 欢庆 乌黑 开朗 缅怀
兴隆 端庄 珍藏 锦旗 黑洞 香水 广为 越野 法度 大兴土木 新旧 沧桑 滑坡 半封建 佛门 法门 三鲜 四壁 深水 深海
远洋 中西 英美 江流 满意度 爱美 远非 保鲜 广度 英里 长脚 铺平 关联 美甲 维度 扎堆 喜洋洋 蒙头 大班 中高 日增
吉他 长跑 阳极 扎根 得意洋洋 满头大汗 蓝牙 满嘴 恩典 横梁 加密 中风 安乐 马脚 牙关 墨水 城建 东南西北 朝拜
高高兴兴 歇斯底里 中考 抚摩 美感 安家 朝圣 人山人海 一棵树 馆藏 虎狼 井水 大哥大 治本 中度 爪牙 仙丹 落山
努嘴 千里马 黑麦 黑市 喜乐 擂台赛 平平安安 并联 山泉 百万富翁 冰封 美美 多角度 上苍 欢度 上宾 福尔马林 无底洞
开春 上西天 阴沟 长眠 叙旧 吐丝 上坡 下坡 抚琴 宜居 吐纳 怀古 塞车 洋洋 吉庆 沾边 惠及 延时 多嘴 攸关 喜孜孜
天南地北 美眉 印花布 下马威 雅兴 夕阳西下 土建 直角三角形 佳丽 临门 陡坡 榆树 新约 胶原 长孙 匹夫 株连 复国
英武 万古 太古 长绳 福地 长龙 黑马 美化 串联 云头'
echo "$notPlaces" | tr ' ' '\n' | grep . | LC_ALL=C sort -u > "${TMPDIR:-/tmp}/not-places.$$"
perl -CSD -ne 'print "$1\n" if /^(\p{Han}{2,}) (\d+) ns$/ && $2 >= 10' "$gse/data/dict/zh/s_1.txt" |
	LC_ALL=C sort -u | LC_ALL=C comm -23 - "${TMPDIR:-/tmp}/not-places.$$" | gzip -9n > lexical/data/zh-places.txt.gz
rm -f "${TMPDIR:-/tmp}/not-places.$$"
for f in lexical/data/zh-dict.txt.gz lexical/data/t2s.tsv.gz lexical/data/zh-places.txt.gz; do
	echo "$(gzip -dc "$f" | wc -l) lines, $(wc -c < "$f") bytes: $f"
done
