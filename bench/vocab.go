package bench

import (
	"strings"
	"sync"
)

// The generator's vocabulary. Function words make the Zipf head of every
// sentence; topic words give sessions a subject (and give the semantic
// queries co-occurring words to paraphrase with); general technical words
// and synthesized code symbols make the long tail.

// functionWordsText: frequent English words, most frequent first (vocabulary.functionWords).
const functionWordsText = `
the to a and of it in is we that this for on with be i you not as was but are
have so if at can from or by an will just now then there when what all one do
should which after before still also because into out up again about need looks
let me us our its more than only some no yes ok think see get got make sure here
same other new first last back why how they them it's don't doesn't can't i'll
we'll let's would could might been were has had did does done going want try
tried run ran use used check checked looks like seems maybe probably right
`

// topicTexts are groups of words that co-occur: a session is about one topic
// (sometimes two), and its turns draw their content words from it.
var topicTexts = []string{
	`database postgres migration schema table column index query transaction rollback replica vacuum deadlock foreign constraint primary sequence pgbouncer connection pool`,
	`cache redis eviction ttl invalidation stale warm hit miss memcached key expiry write-through lru shard cluster hotkey serialization`,
	`deploy release rollout canary staging production pipeline artifact helm chart kubernetes pod replica namespace ingress manifest kubectl cluster node`,
	`auth login token session cookie oauth refresh jwt permission role scope password hash bcrypt csrf cors header middleware`,
	`test unit integration fixture mock assertion flaky coverage snapshot golden table-driven benchmark race detector ci runner harness regression`,
	`build compiler linker module dependency vendor toolchain makefile target binary flag version semver lockfile upgrade checksum reproducible cgo`,
	`network socket port loopback tcp udp dns resolver latency timeout retry backoff proxy tls certificate handshake keepalive firewall packet`,
	`logging log level structured json slog trace span metric counter histogram gauge dashboard alert grafana prometheus exporter sampling`,
	`frontend react component state props hook render css layout button modal form input validation browser bundle webpack vite typescript`,
	`api endpoint route handler request response status payload schema contract versioning pagination rate limit quota client sdk openapi`,
	`queue worker job kafka consumer producer topic partition offset backlog dead-letter retry idempotent ack batch throughput scheduler cron`,
	`memory leak heap allocation garbage collector profile pprof goroutine thread stack cpu flamegraph hot path spike oom rss gc`,
	`search index ranking bm25 embedding vector recall precision query tokenizer stemmer synonym rerank fusion relevance corpus chunk snippet`,
	`storage disk file directory path permission fsync rename atomic backup restore snapshot volume mount quota inode compaction checksum`,
	`config setting yaml env variable default override flag toggle feature profile secret vault parameter template validation key`,
	`incident outage postmortem pager oncall escalation mitigation root cause impact timeline severity runbook customer downtime sla status`,
	`refactor cleanup rename extract interface struct method function package split duplication abstraction naming readability dead code`,
	`docs readme guide tutorial example changelog comment docstring reference diagram wiki onboarding faq install usage section`,
	`security vulnerability cve patch audit scan injection xss sanitize escape secret rotation encryption key tls policy sandbox`,
	`python pip venv poetry pytest django flask fastapi asyncio typing mypy ruff import decorator generator wheel interpreter`,
	`golang goroutine channel mutex context interface struct embed generics errgroup select defer panic recover vet gofmt module`,
	`rust cargo crate borrow lifetime trait async tokio serde clippy unsafe ownership macro enum match result option`,
	`git branch merge rebase commit diff conflict cherry-pick tag remote push pull stash bisect blame history squash hook`,
	`agent prompt model context window tool call transcript memory recall summary instruction completion token budget reasoning claude codex`,
	`data csv parquet etl transform pipeline warehouse bigquery spark dataframe aggregation join schema column partition backfill`,
	`mobile ios android app store release build simulator device push notification crash report swift kotlin gradle xcode`,
	`billing invoice payment stripe subscription plan refund charge webhook customer currency tax ledger reconciliation`,
	`email smtp notification template bounce delivery spam unsubscribe queue digest sender recipient mailbox`,
	`ui tui terminal screen keybinding bubbletea view update model cursor scroll pane theme color width`,
	`macos launchd plist service daemon systemd unit restart journal socket activation signal sighup sigterm`,
}

// generalWordsText: technical words used across topics (vocabulary.generalWords).
const generalWordsText = `
error issue bug fix change update code file function line problem case value
result output input user server service system time data work change request
change message report list item name type field default option support version
handle process call return check update add remove create delete read write load
save start stop open close send receive parse format convert compare match filter
sort merge split join copy move rename replace reset clear set get find show hide
simple complex small large fast slow quick early late old new current previous
next final main core base common shared internal external public private local
remote global single multiple empty full valid invalid missing broken working
failing passing stable unstable correct wrong expected unexpected possible likely
behaviour performance reliability consistency latency throughput capacity limit
threshold budget deadline estimate plan approach design proposal decision review
feedback comment question answer note summary detail context reason example
option alternative tradeoff risk cost benefit impact scope priority task ticket
milestone sprint backlog roadmap goal status progress blocker dependency owner
team person customer operator developer maintainer reviewer author user admin
environment machine host container image instance region zone cloud provider
account project repository workspace folder directory module package library
framework tool script command argument parameter variable constant property
attribute object instance class method interface implementation abstraction layer
boundary contract protocol format encoding decoding serialization buffer stream
reader writer parser lexer encoder decoder handler adapter wrapper helper utility
manager controller service provider factory builder registry resolver validator
monitor watcher listener observer publisher subscriber scheduler executor runner
worker pool queue stack map slice array vector matrix tree graph node edge list
set table row record entry item element key value pair tuple struct union enum
string number integer float boolean byte bit char rune pointer reference handle
address offset length size count total average median percentile minimum maximum
range window interval period duration timestamp date day week month year hour
minute second millisecond microsecond nanosecond epoch timezone calendar schedule
retry timeout deadline cancel abort panic crash hang freeze stall spin loop poll
wait sleep block unblock lock unlock acquire release signal notify broadcast
event hook callback promise future task coroutine thread process job batch
step stage phase pass round iteration cycle epoch generation revision snapshot
checkpoint commit transaction savepoint journal wal log trace audit history
timeline changelog release patch hotfix backport upgrade downgrade migrate
install uninstall configure enable disable toggle switch flag option preference
setting policy rule guard check assert verify validate sanitize normalize escape
quote unquote trim pad wrap unwrap inline expand collapse fold unfold render paint
draw layout align resize scale zoom scroll focus blur select highlight mark
warning notice hint tip caveat gotcha pitfall workaround hack kludge shim polyfill
legacy deprecated obsolete experimental preview beta alpha stable nightly canary
benchmark measure profile sample estimate compute evaluate score rank weight
boost penalty factor ratio share fraction percent budget quota allowance margin
`

// chineseWordsText: Chinese technical words, most frequent first (vocabulary.chineseWords).
const chineseWordsText = `
问题 修复 错误 代码 文件 服务 配置 数据 用户 测试 部署 版本 更新 接口 日志
数据库 缓存 索引 查询 性能 内存 网络 端口 请求 响应 超时 重试 任务 进程 线程
构建 编译 依赖 模块 函数 参数 变量 字段 类型 结果 输出 输入 格式 编码 解析
服务器 客户端 集群 节点 容器 镜像 环境 生产 预发 回滚 发布 灰度 监控 告警
权限 认证 登录 令牌 会话 密钥 加密 证书 安全 漏洞 审计 扫描 补丁 策略 规则
迁移 事务 锁 死锁 主键 外键 分区 副本 备份 恢复 快照 压缩 校验 同步 异步
队列 消费者 生产者 消息 主题 偏移 批量 吞吐 延迟 调度 定时 任务队列 工作者
前端 组件 页面 按钮 表单 样式 布局 渲染 浏览器 打包 路由 状态 事件 回调
文档 说明 示例 教程 注释 变更 记录 会议 讨论 决定 方案 设计 评审 反馈
检索 排序 向量 嵌入 召回 精度 分词 词干 同义词 重排 融合 相关性 语料 片段
内存泄漏 垃圾回收 协程 堆栈 火焰图 热点 峰值 采样 指标 计数器 直方图 仪表盘
脚本 命令 工具 终端 快捷键 窗口 主题 颜色 宽度 滚动 光标 视图 模型 更新
守护进程 服务单元 重启 信号 套接字 回环 防火墙 代理 域名 解析器 握手 保活
账单 发票 支付 订阅 退款 货币 税 对账 邮件 通知 模板 退信 收件人 发件人
智能体 提示词 上下文 窗口 工具调用 对话 记忆 摘要 指令 推理 预算 令牌数
重构 清理 重命名 抽取 结构体 方法 包 拆分 重复 抽象 命名 可读性 死代码
性能优化 瓶颈 基准测试 压测 并发 吞吐量 延迟分布 尾延迟 资源占用 扩容 缩容
故障 事故 复盘 值班 升级 缓解 根因 影响 时间线 严重程度 手册 客户 停机
`

// projectsText: the projects sessions belong to, most frequent first (vocabulary.projects).
const projectsText = `nova atlas harbor orbit quartz lumen cedar ember falcon glacier juniper kestrel`

// agentsText: the agents that produced the transcripts, most frequent first (vocabulary.agents).
const agentsText = `claude-code codex cursor aider`

// tagWordsText: record tags (vocabulary.tagWords).
const tagWordsText = `bug deploy config incident perf docs test security refactor decision lesson migration review`

// Identifier material.
const (
	ticketPrefixesText = `NOVA OPS INFRA WEB DATA SEC`
	fileDirsText       = `src/app src/api src/db src/ui cmd/server internal/search internal/index lib pkg/cache scripts deploy/k8s web/components tests`
	fileExtsText       = `.py .go .ts .tsx .rs .yaml .json .md .sql .sh`
)

var commonPorts = []int{3036, 3037, 8080, 8000, 5432, 6379, 9090, 3000, 443, 8443, 9200, 27017, 11434, 5173}

// questionTemplates turn words into natural questions (semantic queries).
// %s is replaced by the words.
var questionTemplates = []string{
	"how did we fix the %s problem",
	"what did we decide about %s",
	"why was %s failing",
	"where did we discuss %s",
	"what was the conclusion on %s",
	"remind me what happened with %s",
}

// vocabulary is the generator's word lists, each split from its text
// (functionWordsText, topicTexts, ...) by vocab on the first corpus made:
// not at init, which every novactl command would pay.
type vocabulary struct {
	functionWords, generalWords, chineseWords []string
	topics                                    [][]string
	projects, agents, tagWords                []string
	ticketPrefixes, fileDirs, fileExts        []string
}

var vocab = sync.OnceValue(func() *vocabulary {
	v := &vocabulary{
		functionWords:  strings.Fields(functionWordsText),
		generalWords:   strings.Fields(generalWordsText),
		chineseWords:   strings.Fields(chineseWordsText),
		projects:       strings.Fields(projectsText),
		agents:         strings.Fields(agentsText),
		tagWords:       strings.Fields(tagWordsText),
		ticketPrefixes: strings.Fields(ticketPrefixesText),
		fileDirs:       strings.Fields(fileDirsText),
		fileExts:       strings.Fields(fileExtsText),
	}
	for _, t := range topicTexts {
		v.topics = append(v.topics, strings.Fields(t))
	}
	return v
})
