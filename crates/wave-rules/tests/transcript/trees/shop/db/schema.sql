create table customer (id int);
